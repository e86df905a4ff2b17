/**
 * Running test files again as a normal user, from a run that is root (CI). Real users are not root, and
 * bubblewrap as a normal user needs unprivileged user namespaces that root never does: the sandbox suites must
 * pass as one too. The checkout may sit where no other user can even look (/root/…), so the files are run
 * from a hard-linked copy in the temporary folder (a link per file: no bytes copied, under a second for the
 * tree), whose folders belong to that user so that its caches and temporary files can be written.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO } from './env';

/** The normal user the suites run as (.ci/run creates it); another one with COMMONROOM_TEST_USER. */
export const NONROOT_USER = process.env.COMMONROOM_TEST_USER || 'commonroom-test';

/** The sandbox suites, as they are in the checkout now (the walls and the room's git may grow more files). */
export function sandboxSuites(): string[] {
  const dir = path.join(REPO, 'test/reliability');
  return fs
    .readdirSync(dir)
    .filter((name) => /^(agent-sandbox|agent-walls.*|room-git.*)\.test\.ts$/.test(name))
    .sort()
    .map((name) => `test/reliability/${name}`);
}

/** The user's uid and gid, or null when this machine has no such user. */
export function userIds(name: string): { uid: number; gid: number } | null {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** What the copy leaves out: history, other programs' installs, and caches the user rewrites (owned by root). */
const LEFT_OUT = new Set(['.git', '.tmp', 'dist', 'test-output', 'test/clients/node_modules', 'test/conformance/node_modules', 'node_modules/.vite', 'node_modules/.vite-temp', 'node_modules/.cache']);

/**
 * `from` linked into `to`: folders made anew and given to `owner`, files hard-linked (copied when another
 * user could not read or run them, or when `to` is on another file system), links made again.
 */
export function linkTree(from: string, to: string, owner: { uid: number; gid: number }, relative = ''): void {
  fs.mkdirSync(to, { mode: 0o755 });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const rel = relative ? `${relative}/${entry.name}` : entry.name;
    if (LEFT_OUT.has(rel)) continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) linkTree(source, target, owner, rel);
    else if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(source), target);
    else if (entry.isFile()) linkFile(source, target);
  }
  fs.chownSync(to, owner.uid, owner.gid);
}

function linkFile(source: string, target: string): void {
  const mode = fs.statSync(source).mode;
  const othersMayUse = (mode & 0o004) !== 0 && ((mode & 0o100) === 0 || (mode & 0o001) !== 0);
  if (othersMayUse) {
    try {
      fs.linkSync(source, target);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV' && (error as NodeJS.ErrnoException).code !== 'EPERM') throw error;
    }
  }
  fs.copyFileSync(source, target);
  fs.chmodSync(target, (mode & 0o777) | 0o444 | ((mode & 0o100) !== 0 ? 0o111 : 0));
}

/**
 * Where the copy goes: a temporary folder anyone may enter on the checkout's own file system, so that files
 * are linked, not copied (/tmp is often a tmpfs; /var/tmp seldom is); else the system's, copying.
 */
function copyPlace(): string {
  const device = fs.statSync(REPO).dev;
  for (const dir of [os.tmpdir(), '/var/tmp', '/tmp']) {
    try {
      const st = fs.statSync(dir);
      if (st.isDirectory() && st.dev === device && (st.mode & 0o001) !== 0) return dir;
    } catch {
      // not on this system
    }
  }
  return os.tmpdir();
}

/** One test of the JSON report: its titles, state and failure text. */
export interface ReportedTest {
  fullName: string;
  status: string;
  failureMessages: string[];
}

export interface NonrootRun {
  status: number | null;
  /** Who wrote the report: the proof that the tests ran as the user. */
  reportUid: number | null;
  output: string;
  tests: ReportedTest[];
}

/**
 * Runs `files` with vitest as `user`, from a linked copy of the checkout, with an environment of its own (its
 * own HOME under /home and temporary folder in the copy; nothing of this run's COMMONROOM_* variables). Answers the exit
 * status, what it printed and each test's outcome.
 */
export async function runAsUser(user: string, owner: { uid: number; gid: number }, files: string[], timeoutMs: number): Promise<NonrootRun> {
  const root = fs.mkdtempSync(path.join(copyPlace(), 'commonroom-nonroot-'));
  let home: string | null = null;
  try {
    const repo = path.join(root, 'repo');
    linkTree(REPO, repo, owner);
    // node itself too: it may be installed where the user cannot reach it (~/.nvm of root)
    fs.mkdirSync(path.join(root, 'bin'), { mode: 0o755 });
    const node = path.join(root, 'bin', 'node');
    linkFile(process.execPath, node);
    fs.mkdirSync(path.join(root, 'tmp'), { mode: 0o700 });
    fs.chownSync(path.join(root, 'tmp'), owner.uid, owner.gid);
    // a home where a person's is, not in a temp folder: temp folders are writable to every agent, and the
    // sandbox suites check that the home folder is not
    fs.mkdirSync('/home', { recursive: true, mode: 0o755 });
    home = fs.mkdtempSync('/home/commonroom-test-');
    fs.chownSync(home, owner.uid, owner.gid);
    fs.chmodSync(root, 0o755);
    const report = path.join(root, 'tmp', 'report.json');
    const env = [
      `HOME=${home}`,
      `TMPDIR=${path.join(root, 'tmp')}`,
      `PATH=${path.join(root, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      'LANG=C.UTF-8',
      `SHELL=${fs.existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh'}`,
      ...(process.env.CI ? [`CI=${process.env.CI}`] : []),
    ];
    const vitest = [node, 'node_modules/vitest/vitest.mjs', 'run', '--project', 'default', '--maxWorkers', '1', '--reporter', 'default', '--reporter', 'json', '--outputFile.json', report, ...files];
    // runuser -u runs the command itself (no login shell); env -i, or runuser would set the user's own HOME
    // in a process group of its own: past the deadline the whole run ends, vitest's workers too
    const child = spawn('runuser', ['-u', user, '--', 'env', '-i', ...env, ...vitest], { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), timeoutMs);
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    clearTimeout(timer);
    const tests: ReportedTest[] = [];
    let reportUid: number | null = null;
    if (fs.existsSync(report)) {
      reportUid = fs.statSync(report).uid;
      const parsed = JSON.parse(fs.readFileSync(report, 'utf8')) as { testResults: { assertionResults: ReportedTest[] }[] };
      for (const file of parsed.testResults) tests.push(...file.assertionResults);
    }
    return { status, reportUid, output, tests };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    if (home) fs.rmSync(home, { recursive: true, force: true });
  }
}
