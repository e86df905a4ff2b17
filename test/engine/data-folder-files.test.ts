/**
 * The files the room keeps in its data folder, made and checked without following links (fs-safe's
 * ensureOwnDir and ensureExactFile, as ensureMask and writeIntegrationFiles use them). These run on any
 * machine, with or without a sandbox: test/reliability/data-folder-links.test.ts drives the same through a
 * room's shells.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureExactFile, ensureOwnDir } from '../../src-main/engine/core/fs-safe';
import { ensureMask } from '../../src-main/engine/process/agent-sandbox';
import { writeIntegrationFiles } from '../../src-main/engine/shells/integration-files';

let root: string;
const modeOf = (p: string) => fs.lstatSync(p).mode & 0o7777;
const posix = process.platform !== 'win32';

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-own-files-'));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!posix)('ensureMask', () => {
  it('makes an empty file of mode 0 in a 0700 folder, and keeps it', () => {
    const mask = ensureMask(path.join(root, 'sandbox'));
    expect(fs.lstatSync(mask).isFile()).toBe(true);
    expect(fs.lstatSync(mask).size).toBe(0);
    expect(modeOf(mask)).toBe(0);
    expect(modeOf(path.dirname(mask))).toBe(0o700);
    const ino = fs.lstatSync(mask).ino;
    ensureMask(path.join(root, 'sandbox'));
    expect(fs.lstatSync(mask).ino).toBe(ino);
  });

  it('a symlink in its place (to a folder or a file) is replaced, and what it pointed at keeps its mode', () => {
    const dir = path.join(root, 'sandbox');
    const mask = ensureMask(dir);
    const victimDir = fs.mkdtempSync(path.join(root, 'victim-'));
    fs.chmodSync(victimDir, 0o755);
    const victimFile = path.join(root, 'victim.txt');
    fs.writeFileSync(victimFile, 'keep');
    fs.chmodSync(victimFile, 0o644);
    for (const victim of [victimDir, victimFile]) {
      fs.rmSync(mask);
      fs.symlinkSync(victim, mask);
      ensureMask(dir);
      expect(fs.lstatSync(mask).isFile()).toBe(true);
      expect(modeOf(mask)).toBe(0);
    }
    expect(modeOf(victimDir)).toBe(0o755);
    expect(modeOf(victimFile)).toBe(0o644);
    expect(fs.readFileSync(victimFile, 'utf8')).toBe('keep');
  });

  it('a folder, or a file with content or another mode, in its place is replaced; sandbox/ made a symlink is replaced too', () => {
    const dir = path.join(root, 'sandbox');
    const mask = path.join(dir, 'sandbox-mask');
    fs.mkdirSync(path.join(mask, 'inside'), { recursive: true });
    ensureMask(dir);
    expect(fs.lstatSync(mask).isFile()).toBe(true);
    fs.rmSync(mask);
    fs.writeFileSync(mask, 'secret', { mode: 0o644 });
    ensureMask(dir);
    expect(fs.lstatSync(mask).size).toBe(0);
    expect(modeOf(mask)).toBe(0);
    const elsewhere = fs.mkdtempSync(path.join(root, 'elsewhere-'));
    fs.rmSync(dir, { recursive: true });
    fs.symlinkSync(elsewhere, dir);
    ensureMask(dir);
    expect(fs.lstatSync(dir).isDirectory()).toBe(true);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });
});

describe.skipIf(!posix)('ensureExactFile and ensureOwnDir', () => {
  it('keeps the right file untouched, replaces one with other bytes, mode, or a second name', () => {
    const dir = path.join(root, 'own');
    ensureOwnDir(dir);
    const file = path.join(dir, 'f');
    expect(ensureExactFile(file, 'ours\n')).toBe('written');
    expect(ensureExactFile(file, 'ours\n')).toBe('kept');
    fs.chmodSync(file, 0o644);
    expect(ensureExactFile(file, 'ours\n')).toBe('written');
    expect(modeOf(file)).toBe(0o600);
    fs.linkSync(file, path.join(root, 'second-name'));
    expect(ensureExactFile(file, 'ours\n')).toBe('written');
    expect(fs.lstatSync(file).nlink).toBe(1);
    fs.writeFileSync(file, 'ours!\n');
    expect(ensureExactFile(file, 'ours\n')).toBe('written');
    expect(fs.readFileSync(file, 'utf8')).toBe('ours\n');
    expect(fs.readdirSync(dir)).toEqual(['f']); // no temp file left
  });

  it('writeIntegrationFiles: a symlinked zsh/ folder is replaced, not written through', () => {
    const dir = path.join(root, 'shell-integration');
    writeIntegrationFiles(dir);
    const elsewhere = fs.mkdtempSync(path.join(root, 'zsh-elsewhere-'));
    fs.rmSync(path.join(dir, 'zsh'), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(dir, 'zsh'));
    writeIntegrationFiles(dir);
    expect(fs.readdirSync(elsewhere)).toEqual([]);
    expect(fs.readdirSync(path.join(dir, 'zsh')).sort()).toEqual(['.zprofile', '.zshenv', '.zshrc']);
  });
});
