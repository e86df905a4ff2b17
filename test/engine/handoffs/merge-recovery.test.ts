/**
 * What a crash leaves of a merge or an accept is put right when the room starts again, with real git and a real
 * room restarted on the same files: an intent recorded and a checkout half-written (some files of the merge
 * written, git's index.lock left) is rolled back when the base branch had not moved yet, and finished (the
 * approval recorded) when it had; the person's own uncommitted change is never touched. An accept cut short
 * (worktree and branch made, the accept never recorded) leaves a handoff that can be accepted again.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Caller } from '../../../src-main/common/dto';
import { startRunner, type RunningRoom } from '../../../src-main/server/runner';
import { WorkspaceService } from '../../../src-main/engine/workspaces/workspace-service';
import { makeHome, type TestHome } from '../../helpers/env';
import { git, makeRepo } from '../../helpers/git-repo';

let home: TestHome;
let room: RunningRoom;
let worker: Caller;
beforeEach(async () => {
  home = makeHome();
  room = await startRunner({ port: 0, paths: home.paths });
  const op = room.engine.operator();
  await room.engine.call(op, 'participant_add', { name: 'w', capabilities: ['read', 'write'] });
  worker = room.engine.authenticate((await room.engine.call(op, 'participant_rotate', { name: 'w' })).token) as Caller;
});
afterEach(async () => {
  await room.close();
  home.cleanup();
});

const files = () => Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`src/f${i}.txt`, `line ${i}\n`]));

/** A repository, a handoff worked on (30 files changed, 10 added, 2 deleted) and completed; the person edits README.md. */
async function completedWork(): Promise<{ repo: string; id: string; tip: string; target: string; paths: string[] }> {
  const repo = makeRepo(path.join(home.root, 'repo'), { 'README.md': '# app\n', ...files() });
  const op = room.engine.operator();
  const { handoff } = await room.engine.call(op, 'handoff_create', { summary: 'many files', to: 'w', workspace: { repo } });
  const folder = (await room.engine.call(worker, 'handoff_accept', { handoffId: handoff.id })).handoff.workspace?.path ?? '';
  for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(folder, 'src', `f${i}.txt`), `line ${i} changed\n`);
  fs.mkdirSync(path.join(folder, 'added'), { recursive: true });
  for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(folder, 'added', `n${i}.txt`), `new ${i}\n`);
  fs.rmSync(path.join(folder, 'src', 'f38.txt'));
  fs.rmSync(path.join(folder, 'src', 'f39.txt'));
  git(folder, 'add', '-A');
  git(folder, 'commit', '-q', '-m', 'work');
  await room.engine.call(worker, 'handoff_complete', { handoffId: handoff.id, result: 'done' });
  fs.writeFileSync(path.join(repo, 'README.md'), '# app (my own edit)\n');
  const tip = git(repo, 'rev-parse', 'main');
  const target = git(folder, 'rev-parse', 'HEAD');
  const paths = git(repo, 'diff', '--name-only', '--no-renames', tip, target).split('\n');
  return { repo, id: handoff.id, tip, target, paths };
}

/** Stops the room and records, as a crash would have left it, a merge intent of `phase`. */
async function crashWithIntent(w: Awaited<ReturnType<typeof completedWork>>, phase: 'checkout' | 'ref'): Promise<void> {
  const db = room.engine.room.location.databasePath;
  const by = room.engine.operator().name;
  await room.close();
  const at = new Date(Date.now() - 5000).toISOString();
  const sql = new Database(db);
  sql
    .prepare('INSERT INTO workspace_intents (handoff_id, kind, repo, ref, worktree, target, previous, paths, phase, phase_at, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(w.id, 'merge', w.repo, 'refs/heads/main', w.repo, w.target, w.tip, JSON.stringify(w.paths), phase, at, JSON.stringify({ head: w.target, fastForward: true, by, reason: 'looks right' }), at);
  sql.close();
  // half of the merge's files written (and a deletion done), as read-tree was when the runner died
  for (const p of w.paths.slice(0, Math.floor(w.paths.length / 2))) {
    const file = path.join(w.repo, p);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const blob = (() => {
      try {
        return git(w.repo, 'show', `${w.target}:${p}`);
      } catch {
        return null;
      }
    })();
    if (blob === null) fs.rmSync(file, { force: true });
    else fs.writeFileSync(file, `${blob}\n`);
  }
}

async function events(id: string) {
  return (await room.engine.call(room.engine.operator(), 'handoff_events', { handoffId: id, limit: 200 })).events;
}

describe('a merge cut short by a crash', () => {
  it('before the base branch moved: the checkout is put back exactly (index too), the lock the room held removed; approving again merges', { timeout: 60_000 }, async () => {
    const w = await completedWork();
    await crashWithIntent(w, 'checkout');
    fs.writeFileSync(path.join(w.repo, '.git', 'index.lock'), '');
    expect(git(w.repo, 'status', '--porcelain').split('\n').length).toBeGreaterThan(10);

    room = await startRunner({ port: 0, paths: home.paths });
    expect(git(w.repo, 'rev-parse', 'main')).toBe(w.tip);
    expect(fs.existsSync(path.join(w.repo, '.git', 'index.lock'))).toBe(false);
    expect(git(w.repo, 'status', '--porcelain', '--untracked-files=all')).toBe('M README.md');
    expect(fs.existsSync(path.join(w.repo, 'added'))).toBe(false);
    expect(fs.readFileSync(path.join(w.repo, 'README.md'), 'utf8')).toBe('# app (my own edit)\n');
    const h = (await room.engine.call(room.engine.operator(), 'handoff_get', { handoffId: w.id })).handoff;
    expect(h.status).toBe('result_ready');
    expect(h.workspace?.note).toMatch(/the runner stopped while merging .* the checkout is as it was/);
    const recovered = (await events(w.id)).find((e) => e.kind === 'workspace.merge_recovered');
    expect(recovered?.data).toMatchObject({ outcome: 'rolled back', into: 'main', previous: w.tip, locksRemoved: [path.join(w.repo, '.git', 'index.lock')], message: expect.stringMatching(/put back .* the checkout is as it was.*approve again/) });

    const merged = await room.engine.call(room.engine.operator(), 'handoff_approve', { handoffId: w.id, merge: true });
    expect(merged.merged?.commit).toBe(w.target);
    expect(git(w.repo, 'status', '--porcelain', '--untracked-files=all')).toBe('M README.md');
  });

  it('after the base branch moved: the merge is finished in the checkout and the approval recorded, as the approver made it', { timeout: 60_000 }, async () => {
    const w = await completedWork();
    await crashWithIntent(w, 'ref');
    git(w.repo, 'update-ref', 'refs/heads/main', w.target, w.tip);
    fs.writeFileSync(path.join(w.repo, '.git', 'refs', 'heads', 'main.lock'), '');

    room = await startRunner({ port: 0, paths: home.paths });
    expect(git(w.repo, 'rev-parse', 'main')).toBe(w.target);
    expect(fs.existsSync(path.join(w.repo, '.git', 'refs', 'heads', 'main.lock'))).toBe(false);
    expect(git(w.repo, 'status', '--porcelain', '--untracked-files=all')).toBe('M README.md');
    expect(fs.readFileSync(path.join(w.repo, 'added', 'n3.txt'), 'utf8')).toBe('new 3\n');
    expect(fs.existsSync(path.join(w.repo, 'src', 'f39.txt'))).toBe(false);
    const h = (await room.engine.call(room.engine.operator(), 'handoff_get', { handoffId: w.id })).handoff;
    expect(h).toMatchObject({ status: 'approved', decision: { approved: true, reason: 'looks right' }, workspace: { state: 'merged', merge: { into: 'main', commit: w.target, fastForward: true } } });
    const kinds = (await events(w.id)).map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['handoff.approved', 'workspace.merge_recovered']));
    expect((await events(w.id)).find((e) => e.kind === 'workspace.merge_recovered')?.data).toMatchObject({ outcome: 'merged', commit: w.target });
  });
});

describe('an accept cut short by a crash', () => {
  it('leaves a handoff that can be accepted again: the worktree and branch it made are removed, and that is recorded', { timeout: 60_000 }, async () => {
    const repo = makeRepo(path.join(home.root, 'repo'), { 'README.md': '# app\n', ...files() });
    const op = room.engine.operator();
    const ids: string[] = [];
    for (const summary of ['with an intent', 'without one']) ids.push((await room.engine.call(op, 'handoff_create', { summary, to: 'w', workspace: { repo } })).handoff.id);
    const service = new WorkspaceService(room.engine.ctx);
    const leftovers = ids.map((id) => {
      const w = service.repo.get(id);
      if (!w) throw new Error('no workspace');
      return { id, folder: service.folderFor(w, id), branch: w.branch, base: w.baseCommit };
    });
    const db = room.engine.room.location.databasePath;
    await room.close();
    for (const l of leftovers) git(repo, 'worktree', 'add', '--quiet', '-b', l.branch, l.folder, l.base);
    fs.rmSync(path.join(leftovers[0]?.folder ?? '', 'src', 'f3.txt')); // cut short mid-checkout: not every file there yet
    const first = leftovers[0] as (typeof leftovers)[number];
    const sql = new Database(db);
    const at = new Date().toISOString();
    sql
      .prepare('INSERT INTO workspace_intents (handoff_id, kind, repo, ref, worktree, target, previous, paths, phase, phase_at, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(first.id, 'accept', repo, `refs/heads/${first.branch}`, first.folder, first.base, null, '[]', 'recorded', at, '{}', at);
    sql.close();

    room = await startRunner({ port: 0, paths: home.paths });
    expect(fs.existsSync(first.folder)).toBe(false);
    expect((await events(first.id)).find((e) => e.kind === 'workspace.accept_recovered')?.data).toMatchObject({ outcome: 'cleared', message: expect.stringMatching(/can be accepted again/) });
    for (const l of leftovers) {
      const accepted = (await room.engine.call(worker, 'handoff_accept', { handoffId: l.id })).handoff;
      expect(accepted.workspace).toMatchObject({ state: 'ready', path: l.folder });
      expect(fs.existsSync(path.join(l.folder, 'src', 'f3.txt'))).toBe(true);
    }
    expect((await events(ids[1] as string)).find((e) => e.kind === 'workspace.leftovers_cleared')?.data).toMatchObject({ removed: expect.arrayContaining([`branch ${leftovers[1]?.branch}`]) });
  });

  it('leaves a handoff that can be accepted again when a crash of the machine kept only the branch (no intent, no folder)', { timeout: 60_000 }, async () => {
    // the accept's intent is written without an fsync of its own, and git makes the branch before the folder:
    // after a power loss the branch at the base commit may be all there is
    const repo = makeRepo(path.join(home.root, 'repo'), { 'README.md': '# app\n', ...files() });
    const op = room.engine.operator();
    const { handoff } = await room.engine.call(op, 'handoff_create', { summary: 'branch only', to: 'w', workspace: { repo } });
    const w = new WorkspaceService(room.engine.ctx).repo.get(handoff.id);
    if (!w) throw new Error('no workspace');
    git(repo, 'branch', w.branch, w.baseCommit);
    const accepted = (await room.engine.call(worker, 'handoff_accept', { handoffId: handoff.id })).handoff;
    expect(accepted.workspace).toMatchObject({ state: 'ready' });
    expect(fs.existsSync(path.join(accepted.workspace?.path ?? '', 'README.md'))).toBe(true);
    expect((await events(handoff.id)).find((e) => e.kind === 'workspace.leftovers_cleared')?.data).toMatchObject({ removed: [`branch ${w.branch}`] });
  });
});
