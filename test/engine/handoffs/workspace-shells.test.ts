/**
 * A handoff's worktree keeps no shells once the handoff ends (issue 45, item 6): approved and merged, or
 * cancelled, every shell opened in its worktree (the assignee's, the person's) ends with it, saying why, before
 * the worktree is removed. Through real MCP SDK clients over HTTP, real git, real processes.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { HandoffView } from '../../../src-main/common/handoff-dto';
import { workspaceRoom } from '../../helpers/workspace-room';
import { GIT_IDENTITY } from '../../helpers/git-repo';
import { worktreeEnv } from '../../../src-main/common/worktree-env';

const room = workspaceRoom();
const { call, refused, started } = room;
type H = { handoff: HandoffView };
type Shell = { shell: { id: string; cwd: string } };

/** A shell of `who` in the worktree that stays open (a prompt, waiting). */
const openIn = async (who: string, cwd: string) => (await call<Shell>(who, 'shell_open', { cwd, shell: '/bin/sh', env: { ...GIT_IDENTITY, PS1: '$ ' } })).shell.id;

describe("a worktree's own values", () => {
  it('a shell opened with the handoff gets its ports and name (what it is given explicitly wins), as its workspace says', { timeout: 60_000 }, async () => {
    const h = await started(room.makeRepo('ports repo'), 'Work with a server');
    const { shell } = await call<Shell>('dev', 'shell_open', { handoffId: h.id, shell: '/bin/sh', env: { PS1: '$ ', COMMONROOM_PORT_COUNT: '8' } });
    const run = await call<{ output: string }>('dev', 'shell_run', { shellId: shell.id, command: 'echo "P=$PORT B=$COMMONROOM_PORT_BASE C=$COMMONROOM_PORT_COUNT W=$COMMONROOM_WORKTREE"', timeoutMs: 20_000 });
    const own = worktreeEnv(h.id);
    expect(run.output).toContain(`P=${own.PORT} B=${own.COMMONROOM_PORT_BASE} C=8 W=${h.id}`);
    expect(h.workspace?.env).toEqual(own);
    expect(Number(own.PORT)).toBeGreaterThanOrEqual(20_000);
    await call<H>('lead', 'handoff_cancel', { handoffId: h.id });
  });
});

describe("a handoff's shells end with it", () => {
  it('cancelled: the assignee\'s shell in its worktree ends, and the worktree is removed', { timeout: 60_000 }, async () => {
    const h = await started(room.makeRepo('cancelled repo'), 'Work that is cancelled');
    const folder = h.workspace?.path ?? '';
    const shell = await openIn('dev', folder);
    await call<H>('lead', 'handoff_cancel', { handoffId: h.id, reason: 'not needed' });
    expect(await refused('dev', 'shell_io', { shellId: shell })).toMatch(/it was closed/);
    expect(fs.existsSync(folder)).toBe(false);
  });

  it('approved and merged: the person\'s shell in the worktree ends too, and the merge is recorded', { timeout: 60_000 }, async () => {
    const h = await started(room.makeRepo('merged repo'), 'Work that is merged');
    const folder = h.workspace?.path ?? '';
    const dev = await openIn('dev', folder);
    await call('dev', 'shell_run', { shellId: dev, command: "echo hi > hi.txt && git add -A && git commit -q -m 'Add hi'", timeoutMs: 20_000 });
    const person = await openIn('operator', folder);
    await call<H>('dev', 'handoff_complete', { handoffId: h.id, result: 'added hi' });
    const out = await call<H & { merged: { into: string; commit: string; fastForward: boolean } }>('operator', 'handoff_approve', { handoffId: h.id, merge: true });
    expect(out.merged).toMatchObject({ into: 'main', fastForward: true });
    expect(await refused('operator', 'shell_io', { shellId: person })).toMatch(/it was closed/);
    // the change stays readable after its worktree is gone (History shows it)
    const ev = await call<{ files: { path: string }[] }>('operator', 'handoff_evidence', { handoffId: h.id });
    expect(ev.files.map((f) => f.path)).toEqual(['hi.txt']);
    expect(fs.existsSync(folder)).toBe(false);
  });
});

describe('a merge refused for the person\'s own uncommitted change (issue 45, item 7)', () => {
  it('names the file in full, however long its path', { timeout: 60_000 }, async () => {
    const long = 'docs/guides/a rather long folder name/and a file name that goes on for quite a while.md';
    const repo = room.makeRepo('dirty repo', { [long]: 'one\n' });
    const h = await started(repo, 'Edit the long file');
    const folder = h.workspace?.path ?? '';
    const dev = await openIn('dev', folder);
    await call('dev', 'shell_run', { shellId: dev, command: `echo two >> '${long}' && git commit -qam 'two'`, timeoutMs: 20_000 });
    await call<H>('dev', 'handoff_complete', { handoffId: h.id, result: 'two' });
    fs.appendFileSync(`${repo}/${long}`, 'mine\n'); // the person's own edit, not committed
    const refusal = await refused('operator', 'handoff_approve', { handoffId: h.id, merge: true });
    expect(refusal).toContain(`you have uncommitted changes to in ${repo}: ${long}. Nothing was changed`);
  });
});
