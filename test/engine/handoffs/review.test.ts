/**
 * Knowing before deciding, and comments that reach the agent, through real MCP SDK clients against a real room
 * with real git: the merge preview of a waiting handoff (the base moved, merges cleanly, then conflicts; checks
 * missing or failed; two live worktrees touching the same lines flagged on both), a rejection with line
 * comments that sends the work back in the same worktree (the agent's handoff and its terminal show them), and
 * the next completion reviewed against the commit reviewed before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { HandoffView, MergePreview } from '../../../src-main/common/handoff-dto';
import { workspaceRoom } from '../../helpers/workspace-room';
import { GIT_IDENTITY, git } from '../../helpers/git-repo';

const room = workspaceRoom();
const { call, started } = room;
type H = { handoff: HandoffView };

/** Runs a command in a shell opened in the handoff's workspace as `who`, and waits for it. */
async function inWorkspace(who: (name: string, args: Record<string, unknown>) => Promise<unknown>, handoffId: string, command: string): Promise<void> {
  const { shell } = (await who('shell_open', { handoffId, shell: '/bin/sh', env: { ...GIT_IDENTITY, PS1: '$ ' } })) as { shell: { id: string } };
  const run = (await who('shell_run', { shellId: shell.id, command, timeoutMs: 30_000 })) as { status: string; exitCode: number | null; output: string };
  await who('shell_close', { shellId: shell.id });
  expect(run, run.output).toMatchObject({ status: 'finished', exitCode: 0 });
}
const asDev = (name: string, args: Record<string, unknown>) => call('dev', name, args);
/** The preview as MCP answers it (empty lists are left out of answers: put back here). */
async function preview(handoffId: string): Promise<MergePreview | null> {
  const p = (await call<{ preview?: MergePreview | null }>('operator', 'handoff_preview', { handoffId })).preview ?? null;
  return p && { ...p, conflicts: p.conflicts ?? [], overlaps: p.overlaps ?? [], checks: { ...p.checks, failed: p.checks.failed ?? [] } };
}

describe('the review knows before deciding', () => {
  it('previews the merge against the base as it moves, states the checks, and flags two worktrees touching the same lines on both', { timeout: 120_000 }, async () => {
    const repo = room.makeRepo('preview repo', { 'README.md': '# app\n', 'src/app.txt': 'one\ntwo\nthree\n', 'notes.txt': 'a\n' });
    const a = await started(repo, 'Say 2');
    await inWorkspace(asDev, a.id, "printf 'one\\n2\\nthree\\n' > src/app.txt && git commit -qam 'Say 2'");
    await call<H>('dev', 'handoff_complete', { handoffId: a.id, result: 'done' });
    expect(await preview(a.id)).toMatchObject({ into: 'main', behind: 0, merge: 'fast-forward', conflicts: [], checks: { state: 'missing' }, overlaps: [] });

    // main moves without touching the same lines: the next look says so, and that it merges cleanly
    git(repo, 'commit', '-qm', 'readme', '--allow-empty');
    fs.writeFileSync(path.join(repo, 'README.md'), '# app, readme\n');
    git(repo, 'commit', '-qam', 'Readme');
    expect(await preview(a.id)).toMatchObject({ behind: 2, merge: 'clean', conflicts: [] });

    // main changes the same line: conflicts in the file, before anyone approves
    fs.writeFileSync(path.join(repo, 'src/app.txt'), 'one\nTWO\nthree\n');
    git(repo, 'commit', '-qam', 'Shout two');
    expect(await preview(a.id)).toMatchObject({ behind: 3, merge: 'conflicts', conflicts: ['src/app.txt'] });

    // a second worktree working on the same line: both are flagged, the one waiting for a decision merges first
    const b = await started(repo, 'Say two in words');
    await inWorkspace(asDev, b.id, "printf 'one\\nzwei\\nthree\\n' > src/app.txt && git commit -qam 'zwei'");
    const ofA = await preview(a.id);
    const ofB = await preview(b.id);
    expect(ofA?.overlaps).toEqual([{ handoffId: b.id, summary: 'Say two in words', status: 'accepted', files: ['src/app.txt'], mergeFirst: 'this' }]);
    expect(ofB?.overlaps).toEqual([{ handoffId: a.id, summary: 'Say 2', status: 'result_ready', files: ['src/app.txt'], mergeFirst: 'that' }]);

    // a check that failed is stated as such
    const c = await started(repo, 'Notes');
    await inWorkspace(asDev, c.id, "printf 'b\\n' > notes.txt && git commit -qam notes");
    const run = await call<{ graphId: string }>('dev', 'tasks_run', { name: 'checks', handoffId: c.id, stages: [{ id: 'unit', command: 'exit 1' }] });
    await call('dev', 'tasks_status', { graphId: run.graphId, stages: false, until: 'ended', waitMs: 20_000 });
    await call<H>('dev', 'handoff_complete', { handoffId: c.id, result: 'done' });
    expect((await preview(c.id))?.checks).toEqual({ state: 'failed', failed: ['checks: unit failed'] });
  });
  it('runs no merge driver the repository names while it previews a conflict (nothing an agent can write is run)', { timeout: 60_000 }, async () => {
    const repo = room.makeRepo('driver repo', { 'src/app.txt': 'one\ntwo\nthree\n' });
    const pwned = path.join(room.home.root, 'driver-ran');
    const h = await started(repo, 'Two');
    await inWorkspace(asDev, h.id, "printf '* merge=evil\\n' > .gitattributes && printf 'one\\n2\\nthree\\n' > src/app.txt && git add -A && git commit -qm two");
    await call<H>('dev', 'handoff_complete', { handoffId: h.id, result: 'done' });
    // a driver in the repository's config (which an agent's worktree shares), and main moved on the same line
    git(repo, 'config', 'merge.evil.driver', `touch ${JSON.stringify(pwned)}; false`);
    fs.mkdirSync(path.join(repo, '.git', 'info'), { recursive: true });
    fs.writeFileSync(path.join(repo, '.git', 'info', 'attributes'), '* merge=evil\n');
    fs.writeFileSync(path.join(repo, 'src/app.txt'), 'one\nTWO\nthree\n');
    git(repo, 'commit', '-qam', 'TWO');
    expect(await preview(h.id)).toMatchObject({ merge: 'conflicts', conflicts: ['src/app.txt'] });
    expect(fs.existsSync(pwned)).toBe(false);
  });
});

/** The stand-in agent: prints its token (for this test to act as it), then echoes each line typed at its prompt. */
function standIn(dir: string): string {
  const script = path.join(dir, 'stand-in.sh');
  fs.writeFileSync(script, `#!/bin/sh\nprintf 'TOKEN=%s\\n' "$COMMONROOM_TOKEN"\nwhile IFS= read -r line; do printf 'GOT<%s>\\n' "$line"; done\n`, { mode: 0o755 });
  return script;
}

describe('comments that reach the agent', () => {
  it('a rejection with line comments sends the work back in the same worktree: the agent reads them in its handoff and its terminal, and the next completion is reviewed against the last', { timeout: 120_000 }, async () => {
    const repo = room.makeRepo('comments repo');
    const engine = room.running.engine;
    const op = engine.operator();
    const { agent } = await engine.call(op, 'agent_start', { client: 'command', command: [standIn(room.home.root)], cwd: room.home.root });
    const shellOut = async () => (await engine.call(op, 'shell_io', { shellId: agent.shellId, cursor: 'start' })).output;
    await expect.poll(shellOut, { timeout: 15_000 }).toMatch(/TOKEN=\S+/);
    const token = /TOKEN=(\S+)/.exec(await shellOut())?.[1] ?? '';
    const client = new Client({ name: 'stand-in', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(room.running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const asAgent = async <T,>(name: string, args: Record<string, unknown>): Promise<T> => {
      const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
      if (r.isError) throw new Error(r.content[0]?.text);
      return r.structuredContent;
    };
    try {
      const { handoff: made } = await call<H>('operator', 'handoff_create', { summary: 'Greet', to: agent.participant, workspace: { repo } });
      await asAgent('handoff_accept', { handoffId: made.id });
      await inWorkspace(asAgent, made.id, "printf 'hello\\n' > greeting.txt && git add -A && git commit -qm greet");
      const first = (await asAgent<H>('handoff_complete', { handoffId: made.id, result: 'greeted' })).handoff;
      const reviewed = first.workspace?.evidence?.head ?? '';

      const comments = [{ path: 'greeting.txt', line: 1, text: 'Say "hello, world"; and\nno newline tricks \u001b[31m' }];
      const rejected = await call<{ handoff: HandoffView; followUp: HandoffView; typedInto: number }>('operator', 'handoff_reject', { handoffId: made.id, reason: 'Not quite', comments, again: true });
      expect(rejected.handoff.decision).toMatchObject({ approved: false, reason: 'Not quite', comments, reviewedHead: reviewed });
      expect(rejected.typedInto).toBe(1);
      const next = rejected.followUp;
      expect(next).toMatchObject({ to: agent.participant, status: 'open', workspace: { path: first.workspace?.path, continues: { handoffId: made.id, reason: 'Not quite', comments, reviewedHead: reviewed } } });

      // the agent reads them in its handoff (its wait ends on the rejection) and in its terminal, as one line of text
      const seen = (await asAgent<H>('handoff_get', { handoffId: made.id })).handoff;
      expect(seen.decision?.comments).toEqual(comments);
      const answer = (await client.callTool({ name: 'handoff_get', arguments: { handoffId: next.id } })) as { content: { text: string }[] };
      expect(answer.content[0]?.text).toContain('comment greeting.txt:1: Say "hello, world"');
      await expect.poll(shellOut, { timeout: 15_000 }).toMatch(/GOT<\[Commonroom\] [^>]*requested changes on handoff/);
      const got = /GOT<([^>]*)>/.exec(await shellOut())?.[1] ?? '';
      expect(got).toContain('greeting.txt:1 Say "hello, world"; and no newline tricks [31m');
      expect(got).toContain(`Go on in handoff ${next.id}`);
      expect(got).not.toContain('\u001b');

      // the follow-up: accepted, fixed, completed; the review shows what changed since the commit reviewed
      await asAgent('handoff_accept', { handoffId: next.id });
      await inWorkspace(asAgent, next.id, "printf 'hello, world\\n' > greeting.txt && git commit -qam 'hello, world'");
      await asAgent('handoff_complete', { handoffId: next.id, result: 'fixed' });
      const since = await engine.call(op, 'handoff_since_review', { handoffId: next.id });
      expect(since.from).toBe(reviewed);
      expect(since.files.map((f) => [f.path, f.additions, f.deletions])).toEqual([['greeting.txt', 1, 1]]);
      expect(since.files[0]?.patch).toContain('-hello\n+hello, world\n');
      // the file at each commit the review is about, for the lines around a hunk
      expect(await engine.call(op, 'handoff_file', { handoffId: next.id, path: 'greeting.txt', at: 'head' })).toEqual({ content: 'hello, world\n' });
      expect(await engine.call(op, 'handoff_file', { handoffId: next.id, path: 'greeting.txt', at: 'reviewed' })).toEqual({ content: 'hello\n' });
      expect((await engine.call(op, 'handoff_file', { handoffId: next.id, path: 'greeting.txt', at: 'base' })).content).toBeNull();
    } finally {
      await client.close();
      await engine.call(op, 'agent_stop', { shellId: agent.shellId, revoke: true });
    }
  });
});
