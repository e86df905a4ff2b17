import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN_CE, BIN_COMMONROOM, makeHome, type TestHome } from '../helpers/env';

/**
 * Permissions mean nothing to root, so these run the CLI as "nobody" (uid 65534) against folders it may not
 * write; they need the test itself to run as root (the CI box does) and a checkout "nobody" can read (not one
 * inside a private 0700 folder such as `mktemp -d` makes), and are skipped otherwise.
 */
const NOBODY = 65534;
const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const nobodyCanRun =
  asRoot && spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(BIN_CE)}, 4)`], { uid: NOBODY, gid: NOBODY }).status === 0;

let home: TestHome;
let nobodyHome: string;
beforeEach(() => {
  home = makeHome();
  fs.chmodSync(home.root, 0o755);
  nobodyHome = path.join(home.root, 'nobody');
  fs.mkdirSync(nobodyHome, { mode: 0o700 });
  fs.chownSync(nobodyHome, NOBODY, NOBODY);
});
afterEach(() => home.cleanup());

function asNobody(bin: string, args: string[]) {
  const env = { ...process.env, HOME: nobodyHome, COMMONROOM_DATA_DIR: path.join(nobodyHome, 'data'), COMMONROOM_CONFIG_DIR: path.join(nobodyHome, 'config'), COMMONROOM_ROOM: '' };
  return spawnSync(process.execPath, [bin, ...args], { uid: NOBODY, gid: NOBODY, env, encoding: 'utf8', timeout: 30_000 });
}

describe.skipIf(!nobodyCanRun)('a room in a folder you cannot write', () => {
  it('serve and ce init name the folder and the fix, and create nothing', () => {
    const folder = path.join(home.root, 'shared');
    fs.mkdirSync(folder, { mode: 0o755 }); // root's: nobody may read it, not write it
    const room = path.join(folder, 'team.md');
    for (const [bin, args] of [[BIN_COMMONROOM, ['serve', '--port', '0', '--room', room]], [BIN_CE, ['init', '--room', room]]] as const) {
      const r = asNobody(bin, [...args]);
      expect(r.status, r.stdout).toBe(1);
      expect(r.stderr).toContain(`cannot write in ${folder} (EACCES)`);
      expect(r.stderr).toContain(`chmod u+rwx ${folder}`);
      expect(r.stderr).toContain('--room ~/rooms/NAME.md');
    }
    expect(fs.readdirSync(folder)).toEqual([]);
  });

  it('a room whose folder became read-only: reads and changes say which folder and what to do', () => {
    const folder = path.join(home.root, 'mine');
    fs.mkdirSync(folder, { mode: 0o700 });
    fs.chownSync(folder, NOBODY, NOBODY);
    const room = path.join(folder, 'notes.md');
    expect(asNobody(BIN_CE, ['init', '--room', room]).status).toBe(0);
    fs.chownSync(folder, 0, 0); // now root's, 0700 → 0755: nobody may read the files it owns there, not add any
    fs.chmodSync(folder, 0o755);
    const change = asNobody(BIN_CE, ['participant', 'add', 'x', '--can', 'read', '--room', room]);
    expect(change.status).toBe(1);
    expect(change.stderr).toContain(`the folder ${folder} is read-only, or not yours: make the folder writable (chmod u+rwx ${folder})`);
    const read = asNobody(BIN_CE, ['handoffs', '--room', room]);
    expect(read.status).toBe(1);
    expect(read.stderr).toContain(`cannot open the room ${room}.commonroom.db`);
    expect(read.stderr).toContain(`chmod u+rwx ${folder}`);
  });
});
