/**
 * The per-repository lock of merges and accepts across processes (two rooms on one repository): a lock held by
 * a live runner process is a refusal naming it, changing nothing; one left by a runner that died is taken over;
 * in one process, steps on one repository wait for each other instead of failing.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processStartTime } from '../../../src-main/engine/process/process-tree';
import { RepoLocks } from '../../../src-main/engine/workspaces/repo-lock';
import { makeHome, type TestHome } from '../../helpers/env';
import { makeRepo } from '../../helpers/git-repo';

let home: TestHome;
beforeEach(() => {
  home = makeHome();
});
afterEach(() => home.cleanup());

/** Where a RepoLocks over `dataDir` keeps the lock of `repo` (named by its git folder). */
const lockFile = (dataDir: string, repo: string) =>
  path.join(dataDir, 'repo-locks', `${crypto.createHash('sha256').update(fs.realpathSync(path.join(repo, '.git'))).digest('hex').slice(0, 32)}.lock`);

describe('the repository lock', () => {
  it('held by another live runner: refused, naming it; left by one that died: taken over', async () => {
    const repo = makeRepo(path.join(home.root, 'repo'), { 'a.txt': 'a\n' });
    const locks = new RepoLocks(home.paths.dataDir, '/rooms/mine.md');
    const other = spawn('sleep', ['30']);
    try {
      await new Promise((r) => other.once('spawn', r));
      const file = lockFile(home.paths.dataDir, repo);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify({ pid: other.pid, startTime: processStartTime(other.pid as number), room: '/rooms/theirs.md', what: 'merging handoff hf_x', at: '2026-12-05T00:00:00Z' }));
      let ran = false;
      await expect(locks.with(repo, 'merging', async () => void (ran = true))).rejects.toThrow(/another room \(\/rooms\/theirs\.md\) is already working on the repository .* \(merging handoff hf_x, .* runner pid \d+\): nothing was changed; try again once it finished/);
      expect(ran).toBe(false);
      other.kill('SIGKILL');
      await new Promise((r) => other.once('exit', r));
      expect(await locks.with(repo, 'merging', async () => 'ran')).toBe('ran');
      expect(fs.existsSync(file)).toBe(false);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('in one process, a second step on the repository waits for the first', async () => {
    const repo = makeRepo(path.join(home.root, 'repo'), { 'a.txt': 'a\n' });
    const a = new RepoLocks(home.paths.dataDir, '/rooms/one.md');
    const b = new RepoLocks(home.paths.dataDir, '/rooms/two.md');
    const order: string[] = [];
    let release: () => void = () => undefined;
    const first = a.with(repo, 'first', () => new Promise<void>((r) => ((release = r), order.push('first in'))).then(() => void order.push('first out')));
    const second = b.with(repo, 'second', async () => void order.push('second'));
    await new Promise((r) => setTimeout(r, 50));
    expect(order).toEqual(['first in']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first in', 'first out', 'second']);
  });
});
