import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Room } from '../../src-main/engine/room/room';
import { makeHome, type TestHome } from '../helpers/env';

const mode = (p: string) => fs.statSync(p).mode & 0o777;
let home: TestHome | undefined;
afterEach(() => {
  vi.restoreAllMocks();
  home?.cleanup();
});

describe("the runner's own folders", () => {
  it('a 0755 config, tokens or data folder of ours is tightened to 0700, and the runner says so', () => {
    home = makeHome();
    const tokens = path.join(home.paths.configDir, 'tokens');
    const rooms = path.join(home.paths.dataDir, 'rooms');
    for (const dir of [tokens, rooms]) fs.mkdirSync(dir, { recursive: true });
    for (const dir of [home.paths.configDir, tokens, home.paths.dataDir, rooms]) fs.chmodSync(dir, 0o755);
    const said: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void said.push(args.join(' ')));
    Room.open({ paths: home.paths }).close();
    for (const dir of [home.paths.configDir, tokens, home.paths.dataDir, rooms]) {
      expect(mode(dir), dir).toBe(0o700);
      expect(said.join('\n')).toContain(`tightened ${dir}`);
    }
  });

  it('a symlinked tokens folder is still refused', () => {
    home = makeHome();
    const elsewhere = path.join(home.root, 'elsewhere');
    fs.mkdirSync(elsewhere, { mode: 0o700 });
    fs.mkdirSync(home.paths.configDir, { mode: 0o700 });
    fs.symlinkSync(elsewhere, path.join(home.paths.configDir, 'tokens'));
    expect(() => Room.open({ paths: home!.paths })).toThrow(/symlink/);
  });

  it('a tokens folder opened up after the token was written is tightened again on the next open', () => {
    home = makeHome();
    Room.open({ paths: home.paths }).close();
    const tokens = path.join(home.paths.configDir, 'tokens');
    fs.chmodSync(tokens, 0o777);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    Room.open({ paths: home.paths }).close();
    expect(mode(tokens)).toBe(0o700);
  });

  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  it.skipIf(!root)(`a tokens folder open to others that belongs to another user is refused${root ? '' : ' (skipped: needs root to make a folder of another user)'}`, () => {
    home = makeHome();
    Room.open({ paths: home.paths }).close();
    const tokens = path.join(home.paths.configDir, 'tokens');
    fs.chmodSync(tokens, 0o777);
    fs.chownSync(tokens, 65534, 65534);
    expect(() => Room.open({ paths: home!.paths })).toThrow(/belongs to another user/);
  });
});
