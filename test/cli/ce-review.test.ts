/**
 * Reviewing and handing work over from the terminal alone: `ce handoff ID` shows the workspace (branch, worktree,
 * the commit the review holds, files with counts, runs), `ce diff ID` prints the captured patch, `ce handoff
 * create` hands work to an agent with a repository named relative to where the person stands, and `ce approve
 * --merge` prints the commit it merged. The real `ce` against a real room file and a real `commonroom serve`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN_CE, makeHome, type TestHome } from '../helpers/env';
import { git, makeRepo } from '../helpers/git-repo';
import { seedRoomFile } from '../helpers/room-file';
import { runCe, startServe, stopServe } from '../helpers/serve';

let home: TestHome;
let repo: string;
beforeEach(() => {
  home = makeHome();
  repo = makeRepo(path.join(home.root, 'my app'), { 'README.md': '# app\n', 'src/app.txt': 'one\ntwo\n' });
});
afterEach(() => home.cleanup());

/** The operator hands bob work in `repo`; bob changes a file, commits it and completes. */
function completedWork(): Promise<{ id: string; head: string }> {
  return seedRoomFile(home, { bob: ['read', 'write'] }, async (engine, { op, bob }) => {
    const { handoff } = await engine.call(op, 'handoff_create', { summary: 'count to three', to: 'bob', workspace: { repo } });
    const { handoff: accepted } = await engine.call(bob, 'handoff_accept', { handoffId: handoff.id });
    const tree = accepted.workspace?.path as string;
    fs.writeFileSync(path.join(tree, 'src/app.txt'), 'one\ntwo\nthree\n');
    git(tree, 'commit', '-q', '-am', 'add three');
    await engine.call(bob, 'handoff_complete', { handoffId: handoff.id, result: 'done' });
    return { id: handoff.id, head: git(tree, 'rev-parse', 'HEAD') };
  });
}

describe('review from the terminal', () => {
  it('ce handoff shows the workspace and the reviewed commit; ce diff prints its patch, --stat its files', async () => {
    const { id, head } = await completedWork();
    const shown = runCe(home, ['handoff', id]);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`branch:      commonroom/${id}   base: main at`);
    expect(shown.stdout).toMatch(/worktree:\s+\S+/);
    expect(shown.stdout).toContain(`reviewed:    commit ${head.slice(0, 12)}`);
    expect(shown.stdout).toMatch(/modified\s+\+1 −0\s+src\/app\.txt/);
    expect(shown.stdout).toContain('tested:      no graph run in the workspace');
    // what approving would do now: main has not moved, a fast-forward; no checks ran
    expect(shown.stdout).toContain('now:         main has not moved; merges as a fast-forward');
    expect(shown.stdout).toContain('no checks ran in the workspace');
    // main moves on the same line: ce handoff says so before anyone approves
    fs.writeFileSync(path.join(repo, 'src/app.txt'), 'one\nTWO\n');
    git(repo, 'commit', '-q', '-am', 'shout');
    expect(runCe(home, ['handoff', id]).stdout).toContain('now:         main moved 1 commit since; conflicts in src/app.txt');

    const diff = runCe(home, ['diff', id]);
    expect(diff.status, diff.stderr).toBe(0);
    expect(diff.stdout).toContain(`handoff ${id}: commonroom/${id} at ${head.slice(0, 12)}`);
    expect(diff.stdout).toContain('+three');
    expect(diff.stdout).not.toContain('\x1b['); // not a terminal: no colour, no pager
    const stat = runCe(home, ['diff', id, '--stat']);
    expect(stat.stdout).toMatch(/modified\s+\+1 −0\s+src\/app\.txt/);
    expect(stat.stdout).not.toContain('+three');
    const json = JSON.parse(runCe(home, ['diff', id, '--json']).stdout) as { evidence: { head: string }; files: { path: string; patch: string }[] };
    expect(json.evidence.head).toBe(head);
    expect(json.files[0]?.patch).toContain('+three');
  });

  it('ce diff on a handoff without a workspace, or not completed, says why there is nothing to show', async () => {
    const ids = await seedRoomFile(home, { bob: ['read', 'write'] }, async (engine, { op }) => {
      const plain = (await engine.call(op, 'handoff_create', { summary: 'no repo', to: 'bob' })).handoff.id;
      const open = (await engine.call(op, 'handoff_create', { summary: 'not done', to: 'bob', workspace: { repo } })).handoff.id;
      return { plain, open };
    });
    const plain = runCe(home, ['diff', ids.plain]);
    expect(plain.status).toBe(2);
    expect(plain.stderr).toMatch(/has no workspace .*no diff to show/);
    expect(runCe(home, ['diff', ids.open]).stderr).toMatch(/not completed yet \(its workspace is planned\)/);
  });

  it('ce handoff create hands work over (a relative --repo is where the person stands); ce approve --merge prints the commit it merged', async () => {
    const { id, head } = await completedWork();
    const serve = await startServe(home);
    try {
      const ce = (args: string[], cwd?: string) => spawnSync(process.execPath, [BIN_CE, ...args], { env: home.env, encoding: 'utf8', timeout: 20_000, ...(cwd ? { cwd } : {}) });
      const made = ce(['handoff', 'create', '--to', 'bob', '--summary', 'and four', '--repo', '.', '--json'], repo);
      expect(made.status, made.stderr).toBe(0);
      const handoff = (JSON.parse(made.stdout) as { handoff: { id: string; owner: string; to: string; workspace: { repo: string; base: string } } }).handoff;
      expect(handoff).toMatchObject({ to: 'bob', workspace: { repo: fs.realpathSync(repo), base: 'main' } });
      expect(ce(['handoff', 'create', '--to', 'bob']).stderr).toMatch(/--summary TEXT/);
      expect(ce(['handoff', 'create', '--summary', 's', '--base', 'main']).stderr).toMatch(/--base needs --repo/);

      const approved = ce(['approve', id, '--merge']);
      expect(approved.status, approved.stderr).toBe(0);
      expect(approved.stdout).toContain(`merged it into main (fast-forward ${head.slice(0, 12)})`);
      expect(git(repo, 'rev-parse', 'main')).toBe(head);
    } finally {
      await stopServe(serve);
    }
  });
});
