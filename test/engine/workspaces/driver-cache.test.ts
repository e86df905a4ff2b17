/**
 * The room's git reuses its read of a repository's drivers (driver-cache.ts) only while nothing that read came
 * from changed. Real git, a real repository: a filter an agent defines after a read was kept — in a file the
 * repository's config includes but which did not exist yet, or by rewriting an included file to the same size
 * and putting its modification time back — is still emptied, so the planted program never runs. Each read
 * here is kept (its inputs are older than the racy window when it is made), so each case is the cache's.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../../../src-main/engine/workspaces/git';
import { GIT_IDENTITY } from '../../helpers/git-repo';

let root: string;
let marker: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-driver-cache-'));
  marker = path.join(root, 'ran');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** The test's own git, as the person (nothing planted runs in it). */
const own = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: root, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...GIT_IDENTITY } });

/** A program an agent could name as a filter: it leaves a marker, then passes its input through. */
function plant(): string {
  const file = path.join(root, 'plant.sh');
  fs.writeFileSync(file, `#!/bin/sh\ntouch '${marker}'\nexec cat\n`, { mode: 0o755 });
  return file;
}

/** A repository whose .txt files go through the filter "late" (which nothing defines yet), including `include`. */
function makeRepo(include: string): string {
  const repo = path.join(root, 'repo');
  fs.mkdirSync(repo);
  own(repo, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(repo, 'a.txt'), 'x\n');
  own(repo, 'add', '-A');
  own(repo, 'commit', '-q', '-m', 'first');
  own(repo, 'config', 'include.path', include);
  fs.writeFileSync(path.join(repo, '.git', 'info', 'attributes'), '*.txt filter=late\n');
  return repo;
}

/** Waits out the cache's racy window, so that the next read is kept. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 2_200));

/** The room's `git status` in `repo` with a.txt's time changed (git must read it through its clean filter). */
async function status(repo: string): Promise<void> {
  fs.utimesSync(path.join(repo, 'a.txt'), 1_000_000_000, 1_000_000_000);
  const out = await git(repo, ['status', '--porcelain']);
  expect(out.status, out.stderr).toBe(0);
}

describe("the room's git reuses a driver read only while its inputs stay as they were", () => {
  it('a filter defined in an included file made after the read is emptied', { timeout: 30_000 }, async () => {
    const later = path.join(root, 'later.cfg');
    const repo = makeRepo(later);
    await settle();
    await status(repo); // read, and kept: later.cfg does not exist
    fs.writeFileSync(later, `[filter "late"]\n\tclean = ${plant()}\n\tsmudge = ${plant()}\n\trequired = true\n`);
    await status(repo);
    expect(fs.existsSync(marker), 'the filter planted after the kept read ran as the person').toBe(false);
  });

  it('a filter renamed into use in an included file of the same size, its modification time put back, is emptied', { timeout: 30_000 }, async () => {
    const included = path.join(root, 'included.cfg');
    const text = (name: string) => `[filter "${name}"]\n\tclean = ${plant()}\n\trequired = true\n`;
    fs.writeFileSync(included, text('lat0'));
    const repo = makeRepo(included);
    await settle();
    await status(repo); // read, and kept: "lat0" is emptied, "late" is not defined
    const before = fs.statSync(included, { bigint: true });
    const times = path.join(root, 'times');
    fs.writeFileSync(times, '');
    execFileSync('touch', ['-r', included, times]); // its times, to the nanosecond
    fs.writeFileSync(included, text('late'));
    execFileSync('touch', ['-r', times, included]);
    const after = fs.statSync(included, { bigint: true });
    expect([after.size, after.mtimeNs, after.ino]).toEqual([before.size, before.mtimeNs, before.ino]);
    await status(repo);
    expect(fs.existsSync(marker), 'the filter renamed after the kept read ran as the person').toBe(false);
  });
});

/** A linked worktree of `repo` (the test's own git, as `git worktree add` makes a handoff's), on branch `branch`. */
function linkedWorktree(repo: string, branch: string): string {
  const folder = path.join(root, branch);
  own(repo, 'worktree', 'add', '-q', '-b', branch, folder);
  return folder;
}

describe("a linked worktree uses its repository's kept read only while that read's inputs stay as they were", () => {
  it("a filter defined after the repository's read was kept, in a file its config includes, is emptied in the worktree", { timeout: 30_000 }, async () => {
    const later = path.join(root, 'later.cfg');
    const repo = makeRepo(later);
    const work = linkedWorktree(repo, 'work');
    await settle();
    await status(repo); // the repository's read, kept: later.cfg does not exist
    await status(work); // the worktree's answer: the repository's read
    fs.writeFileSync(later, `[filter "late"]\n\tclean = ${plant()}\n\tsmudge = ${plant()}\n\trequired = true\n`);
    await status(work);
    expect(fs.existsSync(marker), "the filter planted after the repository's kept read ran as the person in its worktree").toBe(false);
  });

  it("with worktree configuration on, a filter written in the worktree's own config.worktree after the repository's read was kept is emptied", { timeout: 30_000 }, async () => {
    const repo = makeRepo(path.join(root, 'none.cfg'));
    own(repo, 'config', 'extensions.worktreeConfig', 'true');
    const work = linkedWorktree(repo, 'work');
    await settle();
    await status(repo); // kept, with every worktree's config.worktree (the worktree's does not exist yet)
    await status(work);
    fs.writeFileSync(path.join(repo, '.git', 'worktrees', 'work', 'config.worktree'), `[filter "late"]\n\tclean = ${plant()}\n\trequired = true\n`);
    await status(work);
    expect(fs.existsSync(marker), "the filter planted in the worktree's own config ran as the person").toBe(false);
  });

  it('commands started together in one folder each run with the drivers emptied', { timeout: 30_000 }, async () => {
    const included = path.join(root, 'included.cfg');
    const repo = makeRepo(included);
    const work = linkedWorktree(repo, 'work');
    // defined now: no read of the worktree (or of its repository) is kept yet
    fs.writeFileSync(included, `[filter "late"]\n\tclean = ${plant()}\n\tsmudge = ${plant()}\n\trequired = true\n`);
    fs.utimesSync(path.join(work, 'a.txt'), 1_000_000_000, 1_000_000_000);
    const outs = await Promise.all([git(work, ['status', '--porcelain']), git(work, ['diff', '--stat']), git(work, ['status', '--porcelain'])]);
    for (const out of outs) expect(out.status, out.stderr).toBe(0);
    expect(fs.existsSync(marker), 'a filter the config names ran as the person').toBe(false);
  });
});
