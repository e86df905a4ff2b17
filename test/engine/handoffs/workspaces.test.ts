/**
 * A git worktree per handoff, through real MCP SDK clients over HTTP against a real room, with real git and
 * repositories made here: created with a repository, accepted (the worktree appears on its own branch), worked
 * in from a shell and a graph that names the handoff, completed (the diff, the commits, the uncommitted files
 * and the failed stage are captured), approved with a merge into the base branch. And what a user expects of
 * a conflict, a base that moved, a binary file, odd file names and a 2,000-file change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EvidenceFile, EvidenceSummary, HandoffView } from '../../../src-main/common/handoff-dto';
import { startRunner } from '../../../src-main/server/runner';
import { makeHome } from '../../helpers/env';
import { workspaceRoom } from '../../helpers/workspace-room';
import { GIT_IDENTITY, git, gitAsync } from '../../helpers/git-repo';

const room = workspaceRoom();
const { call, refused, started } = room;
const makeRepo = (name: string, files?: Record<string, string>) => room.makeRepo(name, files);



type H = { handoff: HandoffView };


/** Runs a command in a shell opened in the handoff's workspace (as dev), and waits for it. */
async function inWorkspace(handoffId: string, command: string): Promise<string> {
  const { shell } = await call<{ shell: { id: string; cwd: string } }>('dev', 'shell_open', { handoffId, shell: '/bin/sh', env: { ...GIT_IDENTITY, PS1: '$ ' } });
  const run = await call<{ status: string; exitCode: number | null; output: string }>('dev', 'shell_run', { shellId: shell.id, command, timeoutMs: 30_000 });
  await call('dev', 'shell_close', { shellId: shell.id });
  expect(run, run.output).toMatchObject({ status: 'finished', exitCode: 0 });
  return run.output;
}

async function evidenceFiles(handoffId: string, limit = 200): Promise<{ evidence: EvidenceSummary | null; files: EvidenceFile[]; pages: number }> {
  const files: EvidenceFile[] = [];
  let cursor: string | undefined;
  let pages = 0;
  let evidence: EvidenceSummary | null = null;
  do {
    const page = await call<{ evidence: EvidenceSummary | null; files: EvidenceFile[]; nextCursor: string | null }>('lead', 'handoff_evidence', { handoffId, limit, ...(cursor ? { cursor } : {}) });
    evidence = page.evidence;
    files.push(...page.files);
    cursor = page.nextCursor ?? undefined;
    pages++;
  } while (cursor);
  return { evidence, files, pages };
}

describe('a workspace per handoff', () => {
  it('is made on accept, worked in by a shell and a graph, captured at completion, and merged by the approval', { timeout: 120_000 }, async () => {
    const repo = makeRepo('app repo');
    const base = git(repo, 'rev-parse', 'HEAD');
    const { handoff: created } = await call<H>('lead', 'handoff_create', { summary: 'Add the greeting', to: 'dev', workspace: { repo } });
    expect(created.workspace).toMatchObject({ repo, base: 'main', baseBranch: 'main', baseCommit: base, branch: `commonroom/${created.id}`, state: 'planned' });
    expect(created.workspace?.path ?? null).toBeNull(); // made when accepted (answers leave out what is null)

    const accepted = (await call<H>('dev', 'handoff_accept', { handoffId: created.id })).handoff;
    const folder = accepted.workspace?.path ?? '';
    expect(accepted.workspace?.state).toBe('ready');
    expect(fs.existsSync(path.join(folder, 'src', 'app.txt'))).toBe(true);
    expect(path.relative(repo, folder).startsWith('..')).toBe(true); // never inside the user's working tree
    expect(git(folder, 'branch', '--show-current')).toBe(`commonroom/${created.id}`);

    // the work: a shell in the worktree edits and commits; a file left uncommitted; a graph tests it there
    await inWorkspace(created.id, "printf 'hello\\n' > greeting.txt && printf 'one\\n2\\nthree\\n' > src/app.txt && git add -A && git commit -q -m 'Add the greeting' && echo scratch > notes.tmp");
    const run = await call<{ graphId: string }>('dev', 'tasks_run', {
      name: 'checks',
      handoffId: created.id,
      stages: [
        { id: 'unit', command: 'test -f greeting.txt' },
        { id: 'lint', command: "echo 'src/app.txt: 2 is not a word' >&2; exit 3" },
      ],
    });
    await call('dev', 'tasks_status', { graphId: run.graphId, stages: false, until: 'ended', waitMs: 20_000 });

    const completed = (await call<H>('dev', 'handoff_complete', { handoffId: created.id, result: 'Added greeting.txt; lint fails on purpose.' })).handoff;
    const evidence = completed.workspace?.evidence;
    expect(evidence).toMatchObject({ commitCount: 1, files: 2, additions: 2, deletions: 1, binaryFiles: 0, uncommitted: [{ path: 'notes.tmp', status: 'untracked' }], uncommittedCount: 1 });
    expect(evidence?.commits[0]).toMatchObject({ subject: 'Add the greeting', author: 'Test' });
    expect(evidence?.runs).toEqual([{ graphId: run.graphId, name: 'checks', state: 'failed', failed: [{ stageId: 'lint', state: expect.stringMatching(/^failed/), log: `task-log://${encodeURIComponent(`${run.graphId}:lint`)}` }] }]);
    const { files } = await evidenceFiles(created.id);
    expect(files.map((f) => [f.status, f.path, f.additions, f.deletions])).toEqual([
      ['added', 'greeting.txt', 1, 0],
      ['modified', 'src/app.txt', 1, 1],
    ]);
    expect(files[1]?.patch).toContain('-two\n+2\n');

    // approve with merge: main fast-forwards to the work's commit (the user's checkout of main follows)
    const approved = await call<H & { merged: { into: string; commit: string; fastForward: boolean } }>('operator', 'handoff_approve', { handoffId: created.id, merge: true });
    expect(approved.merged).toMatchObject({ into: 'main', fastForward: true });
    expect(git(repo, 'rev-parse', 'main')).toBe(approved.merged.commit);
    expect(fs.readFileSync(path.join(repo, 'greeting.txt'), 'utf8')).toBe('hello\n');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    // the worktree held an uncommitted file: kept, and said so
    expect(approved.handoff.workspace).toMatchObject({ state: 'merged', merge: { into: 'main', fastForward: true, by: 'operator' } });
    expect(approved.handoff.workspace?.note).toMatch(/1 uncommitted change/);
    expect(fs.existsSync(path.join(folder, 'notes.tmp'))).toBe(true);
  });

  it('refuses what is not a repository, a base that does not resolve and a repository without commits, saying what to do', async () => {
    const plain = path.join(room.home.root, 'not-a-repo');
    fs.mkdirSync(plain, { recursive: true });
    expect(await refused('lead', 'handoff_create', { summary: 'x', workspace: { repo: plain } })).toMatch(/not in a git repository.*git init/);
    expect(await refused('lead', 'handoff_create', { summary: 'x', workspace: { repo: path.join(room.home.root, 'nowhere') } })).toMatch(/not a folder/);
    const repo = makeRepo('refusals');
    expect(await refused('lead', 'handoff_create', { summary: 'x', workspace: { repo, base: 'no-such-branch' } })).toMatch(/does not name a commit/);
    const empty = path.join(room.home.root, 'empty');
    fs.mkdirSync(empty);
    git(empty, 'init', '-q');
    expect(await refused('lead', 'handoff_create', { summary: 'x', workspace: { repo: empty } })).toMatch(/no commits yet/);
    // nothing was created by any of them
    expect((await call<{ handoffs: HandoffView[] }>('operator', 'handoff_list', {})).handoffs.filter((h) => h.summary === 'x')).toEqual([]);
  });

  it('two handoffs on one repository each get their own worktree and branch', async () => {
    const repo = makeRepo('shared');
    const a = await started(repo, 'first of two');
    const b = await started(repo, 'second of two');
    expect(a.workspace?.path).not.toBe(b.workspace?.path);
    expect(git(a.workspace?.path ?? '', 'branch', '--show-current')).toBe(`commonroom/${a.id}`);
    expect(git(b.workspace?.path ?? '', 'branch', '--show-current')).toBe(`commonroom/${b.id}`);
  });

  it('a merge that conflicts changes nothing and keeps the handoff ready; rejected, a follow-up goes on in the same worktree and merges over the moved base', { timeout: 120_000 }, async () => {
    const repo = makeRepo('conflicts');
    const h = await started(repo, 'Change line two');
    await inWorkspace(h.id, "printf 'one\\nTWO\\nthree\\n' > src/app.txt && git commit -q -am 'two in capitals'");
    // meanwhile the user changes the same line on main, and another file
    fs.writeFileSync(path.join(repo, 'src', 'app.txt'), 'one\nzwei\nthree\n');
    fs.writeFileSync(path.join(repo, 'CHANGELOG.md'), 'moved on\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'two in German');
    const mainBefore = git(repo, 'rev-parse', 'main');
    await call('dev', 'handoff_complete', { handoffId: h.id, result: 'done' });

    const conflict = await refused('operator', 'handoff_approve', { handoffId: h.id, merge: true });
    expect(conflict).toMatch(/conflicts in 1 file: src\/app\.txt\. Nothing was changed/);
    expect(git(repo, 'rev-parse', 'main')).toBe(mainBefore);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect((await call<H>('lead', 'handoff_get', { handoffId: h.id })).handoff.status).toBe('result_ready');

    // rejected: the worktree stays; a follow-up continues in it and its assignee reads why
    const rejected = (await call<H>('operator', 'handoff_reject', { handoffId: h.id, reason: 'conflicts with main: keep the German' })).handoff;
    expect(rejected.workspace?.state).toBe('ready');
    const { handoff: next } = await call<H>('lead', 'handoff_create', { summary: 'Resolve the conflict', to: 'dev', continues: h.id });
    expect(next.workspace).toMatchObject({ path: rejected.workspace?.path, branch: `commonroom/${h.id}`, state: 'ready', continues: { handoffId: h.id, reason: 'conflicts with main: keep the German' } });
    await call('dev', 'handoff_accept', { handoffId: next.id });
    await inWorkspace(next.id, "git merge -q main >/dev/null 2>&1; printf 'one\\nzwei\\nthree\\n' > src/app.txt && git commit -q -am 'take main: zwei' && git log --oneline | wc -l");
    await call('dev', 'handoff_complete', { handoffId: next.id, result: 'resolved' });
    const merged = await call<H & { merged: { commit: string; fastForward: boolean } }>('operator', 'handoff_approve', { handoffId: next.id, merge: true });
    // the base had not moved since the resolution merged it in: a fast-forward that keeps the user's commit
    expect(git(repo, 'rev-parse', 'main')).toBe(merged.merged.commit);
    expect(git(repo, 'merge-base', '--is-ancestor', mainBefore, 'main')).toBe('');
    expect(fs.readFileSync(path.join(repo, 'CHANGELOG.md'), 'utf8')).toBe('moved on\n');
  });

  it('a base that moved without conflicting gets a merge commit naming the handoff; the user\'s checkout follows', { timeout: 60_000 }, async () => {
    const repo = makeRepo('moved');
    const h = await started(repo, 'Add a file');
    await inWorkspace(h.id, "printf 'new\\n' > added.txt && git add added.txt && git commit -q -m 'add a file'");
    fs.writeFileSync(path.join(repo, 'other.txt'), 'from main\n');
    git(repo, 'add', 'other.txt');
    git(repo, 'commit', '-q', '-m', 'main moves on');
    // the user has an unrelated change in progress: it stays
    fs.writeFileSync(path.join(repo, 'README.md'), '# app (editing)\n');
    await call('dev', 'handoff_complete', { handoffId: h.id, result: 'added' });
    const merged = await call<H & { merged: { commit: string; fastForward: boolean } }>('operator', 'handoff_approve', { handoffId: h.id, merge: true });
    expect(merged.merged.fastForward).toBe(false);
    expect(git(repo, 'log', '-1', '--format=%s%n%b', 'main')).toMatch(new RegExp(`^Merge commonroom/${h.id}: Add a file[\\s\\S]*handoff ${h.id}`));
    expect(git(repo, 'rev-list', '--parents', '-1', 'main').split(' ')).toHaveLength(3);
    expect(fs.readFileSync(path.join(repo, 'added.txt'), 'utf8')).toBe('new\n');
    expect(fs.readFileSync(path.join(repo, 'README.md'), 'utf8')).toBe('# app (editing)\n');
    expect(merged.handoff.workspace?.state).toBe('merged');
    expect(fs.existsSync(merged.handoff.workspace?.path ?? '')).toBe(false); // nothing left in it: removed
    expect(git(repo, 'branch', '--list', `commonroom/${h.id}`)).toBe('');
  });

  it('cancelled, a worktree goes when nothing in it would be lost; commits stay on their branch', async () => {
    const repo = makeRepo('cancels');
    const clean = await started(repo, 'nothing done');
    const cancelled = (await call<H>('lead', 'handoff_cancel', { handoffId: clean.id, reason: 'not needed' })).handoff;
    expect(cancelled.workspace?.state).toBe('removed');
    expect(fs.existsSync(clean.workspace?.path ?? '')).toBe(false);
    expect(git(repo, 'branch', '--list', `commonroom/${clean.id}`)).toBe('');
    const worked = await started(repo, 'some work done');
    await inWorkspace(worked.id, "echo kept > kept.txt && git add kept.txt && git commit -q -m 'worth keeping'");
    const kept = (await call<H>('lead', 'handoff_cancel', { handoffId: worked.id })).handoff;
    expect(kept.workspace?.note).toMatch(/its commit stays on branch commonroom\//);
    expect(git(repo, 'log', '-1', '--format=%s', `commonroom/${worked.id}`)).toBe('worth keeping');
    // planned only (never accepted): nothing was made, nothing to remove
    const { handoff: never } = await call<H>('lead', 'handoff_create', { summary: 'never accepted', to: 'dev', workspace: { repo } });
    expect((await call<H>('lead', 'handoff_cancel', { handoffId: never.id })).handoff.workspace).toMatchObject({ state: 'removed', note: expect.stringMatching(/no worktree was made/) });
  });

  it('captures binary files by name, odd names as they are, and a 2,000-file change in bounded pages', { timeout: 120_000 }, async () => {
    const repo = makeRepo('big change');
    const h = await started(repo, 'Many files');
    const folder = h.workspace?.path ?? '';
    fs.writeFileSync(path.join(folder, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0, 255]));
    fs.writeFileSync(path.join(folder, 'with space — ünïcode.txt'), 'hé\n');
    fs.mkdirSync(path.join(folder, 'gen'));
    for (let i = 0; i < 2000; i++) fs.writeFileSync(path.join(folder, 'gen', `f${String(i).padStart(4, '0')}.txt`), `line ${i}\n`);
    // without blocking the room's event loop (it runs in this process) for the seconds 2,000 files take
    await gitAsync(folder, 'add', '-A');
    await gitAsync(folder, 'commit', '-q', '-m', 'lots');
    const done = (await call<H>('dev', 'handoff_complete', { handoffId: h.id, result: 'many' })).handoff;
    expect(done.workspace?.evidence).toMatchObject({ files: 2002, additions: 2001, binaryFiles: 1, commitCount: 1 });
    const { files, pages } = await evidenceFiles(h.id, 200);
    expect(files).toHaveLength(2002);
    expect(pages).toBe(11);
    const logo = files.find((f) => f.path === 'logo.png');
    expect(logo).toMatchObject({ binary: true, status: 'added' });
    expect([logo?.patch, logo?.additions, logo?.deletions].map((v) => v ?? null)).toEqual([null, null, null]); // named, not inlined
    expect(files.find((f) => f.path === 'with space — ünïcode.txt')?.patch).toContain('+hé');
  });
});

describe('after a restart', () => {
  it('finds its worktrees again; one deleted by hand is reported missing, not fatal', { timeout: 60_000 }, async () => {
    const other = makeHome();
    try {
      const repo = path.join(other.root, 'repo');
      fs.mkdirSync(repo);
      git(repo, 'init', '-q', '-b', 'main');
      fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
      git(repo, 'add', '-A');
      git(repo, 'commit', '-q', '-m', 'first');
      let room = await startRunner({ port: 0, paths: other.paths });
      const op = room.engine.operator();
      await room.engine.call(op, 'participant_add', { name: 'w', capabilities: ['read', 'write'] });
      const w = room.engine.authenticate((await room.engine.call(op, 'participant_rotate', { name: 'w' })).token);
      if (!w) throw new Error('no caller');
      const ids: string[] = [];
      for (const summary of ['stays', 'deleted by hand']) {
        const { handoff } = await room.engine.call(op, 'handoff_create', { summary, to: 'w', workspace: { repo } });
        ids.push((await room.engine.call(w, 'handoff_accept', { handoffId: handoff.id })).handoff.id);
      }
      const gone = (await room.engine.call(op, 'handoff_get', { handoffId: ids[1] as string })).handoff.workspace?.path ?? '';
      await room.close();
      fs.rmSync(gone, { recursive: true, force: true });
      room = await startRunner({ port: 0, paths: other.paths });
      try {
        const stays = (await room.engine.call(room.engine.operator(), 'handoff_get', { handoffId: ids[0] as string })).handoff.workspace;
        const missing = (await room.engine.call(room.engine.operator(), 'handoff_get', { handoffId: ids[1] as string })).handoff.workspace;
        expect(stays?.state).toBe('ready');
        expect(missing).toMatchObject({ state: 'missing', note: expect.stringMatching(/was not found when the room started/) });
        const history = await room.engine.call(room.engine.operator(), 'workspace_history', { limit: 200 });
        expect(history.events.filter((e) => e.kind === 'workspace.missing').map((e) => e.subject)).toEqual([ids[1]]);
      } finally {
        await room.close();
      }
    } finally {
      other.cleanup();
    }
  });
});
