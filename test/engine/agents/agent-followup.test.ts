/**
 * The rest of a task's life for an agent the room started (issue 45, items 1, 2 and 6): idle at its prompt with
 * commits in its worktree it is "ready for review?" (agent_list), and the person can complete it for the agent
 * (agent_complete); a rejected one is followed up with the same agent in the same worktree (agent_start with
 * continues), and "Start again" goes on with the client's own conversation where the client can (resume).
 * Real room, real git, a real process standing in for the client.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_CLIENTS } from '../../../src-main/common/agent-clients';
import { GIT_IDENTITY, git, makeRepo } from '../../helpers/git-repo';
import { startTestRunner, type TestRunner } from '../../helpers/runner';

let runner: TestRunner;
let script: string;
beforeAll(async () => {
  runner = await startTestRunner();
  script = path.join(runner.home.root, 'commit-once.sh');
  // a scripted stand-in for a client (its pid is the same in every sandbox: the time names the file): it commits one file in the folder it starts in, prints its prompt and waits
  const identity = Object.entries(GIT_IDENTITY).map(([k, v]) => `export ${k}='${v}'`).join('\n');
  fs.writeFileSync(script, `#!/bin/sh\n${identity}\nn=$(date +%s%N); echo "work $n" > "work-$n.txt" && git add -A && git commit -q -m "work $n"\nprintf 'task: %s\\n' "$COMMONROOM_TASK"\necho "> "\nexec sleep 120\n`, { mode: 0o755 });
}, 60_000);
afterAll(() => runner?.close());

const op = () => runner.running.engine.operator();
const call = <M extends Parameters<TestRunner['running']['engine']['call']>[1]>(method: M, input: unknown) => runner.running.engine.call(op(), method, input as never);
const reviewOf = async (shellId: string) => (await call('agent_list', {})).agents.find((a) => a.shellId === shellId)?.review ?? null;

describe('an agent on a task, after it started', () => {
  it('is offered for review once idle with a commit, completed for it by the person, followed up in the same worktree, then merged', { timeout: 90_000 }, async () => {
    const repo = makeRepo(path.join(runner.home.root, 'app'), { 'README.md': '# app\n' });
    const { agent } = await call('agent_start', { client: 'command', command: [script], cwd: repo, task: 'Add a work file' });
    const handoffId = agent.handoffId as string;
    await expect.poll(() => reviewOf(agent.shellId), { timeout: 30_000, interval: 200 }).toMatchObject({ handoffId, commits: 1 });

    // the person completes it for the agent: the change is captured, the agent's terminal in the worktree ends
    const { handoff: done } = await call('agent_complete', { handoffId, result: 'Added the work file (completed for it by the person)' });
    expect(done).toMatchObject({ status: 'result_ready', result: { completedBy: agent.participant } });
    expect(done.workspace?.evidence).toMatchObject({ commitCount: 1, files: 1 });
    expect((await call('agent_list', {})).agents.some((a) => a.shellId === agent.shellId)).toBe(false);
    await expect(call('agent_complete', { handoffId, result: 'again' })).rejects.toThrow(/no agent the room started works on handoff/);

    // rejected, then followed up: the same participant, the same worktree, the reason in its first prompt
    await call('handoff_reject', { handoffId, reason: 'name the file work.txt', comments: [{ path: 'work.txt', line: 1, text: 'say what the work is' }] });
    const { agent: again } = await call('agent_start', { client: 'command', command: [script], cwd: repo, task: 'Rename it as asked', continues: handoffId });
    expect(again.participant).toBe(agent.participant);
    expect(again.cwd).toBe(agent.cwd);
    const { handoff: follow } = await call('handoff_get', { handoffId: again.handoffId as string });
    expect(follow).toMatchObject({ to: agent.participant, assignee: agent.participant, status: 'accepted' });
    expect(follow.workspace).toMatchObject({ path: agent.cwd, state: 'ready', continues: { handoffId, reason: 'name the file work.txt' } });
    await expect.poll(async () => (await call('shell_io', { shellId: again.shellId, cursor: 'start' })).output, { timeout: 15_000 }).toContain('> ');
    // the person's line comments are in its first prompt, with the reason
    const first = (await call('shell_io', { shellId: again.shellId, cursor: 'start' })).output.replace(/\s+/g, ' ');
    expect(first).toContain('rejected: "name the file work.txt"');
    expect(first).toContain("The person's comments on lines: work.txt:1 say what the work is");
    // counted from where the rejected work ended: its own new commit, not the earlier one
    await expect.poll(() => reviewOf(again.shellId), { timeout: 30_000, interval: 200 }).toMatchObject({ commits: 1 });
    expect(git(agent.cwd, 'rev-list', '--count', 'main..HEAD')).toBe('2');
    await call('agent_complete', { handoffId: follow.id, result: 'Renamed' });
    const approved = await call('handoff_approve', { handoffId: follow.id, merge: true });
    expect(approved.merged).toMatchObject({ into: 'main', fastForward: true });
    expect(git(repo, 'rev-parse', 'main')).toBe(approved.merged?.commit);
    expect(fs.existsSync(agent.cwd)).toBe(false);
  });

  it('Request changes after its terminal ended: started again, it takes on the follow-up the rejection made, with the comments as its first prompt', { timeout: 90_000 }, async () => {
    const repo = makeRepo(path.join(runner.home.root, 'ended'), { 'README.md': '# ended\n' });
    const { agent } = await call('agent_start', { client: 'command', command: [script], cwd: repo, task: 'Add a work file' });
    const handoffId = agent.handoffId as string;
    await expect.poll(() => reviewOf(agent.shellId), { timeout: 30_000, interval: 200 }).toMatchObject({ handoffId, commits: 1 });
    await call('agent_complete', { handoffId, result: 'Added' }); // its terminal in the worktree ends with its work

    // Request changes as the review sends it (comments, and a follow-up in the same worktree): no terminal to type into
    const comments = [{ path: 'README.md', line: 1, text: 'call it the ended app' }];
    const rejected = await call('handoff_reject', { handoffId, reason: 'a better title', comments, again: true });
    expect(rejected.typedInto).toBe(0);
    const followUp = rejected.followUp?.id as string;
    expect(followUp).toMatch(/^hf_/);

    // started again as the Follow up button does (the run's program, kept by the room): it goes on with that follow-up
    const earlier = (await call('agent_list', {})).earlier.find((r) => r.participant === agent.participant);
    expect(earlier).toMatchObject({ client: 'command', command: [script] });
    const { agent: again } = await call('agent_start', { client: 'command', command: earlier?.command, cwd: repo, task: 'Retitle it', continues: handoffId });
    expect(again).toMatchObject({ participant: agent.participant, cwd: agent.cwd, handoffId: followUp });
    expect((await call('handoff_get', { handoffId: followUp })).handoff).toMatchObject({ status: 'accepted', assignee: agent.participant });
    const open = (await call('handoff_list', {})).handoffs.filter((h) => h.workspace?.continues?.handoffId === handoffId && !['cancelled', 'rejected'].includes(h.status));
    expect(open.map((h) => h.id)).toEqual([followUp]);
    await expect.poll(async () => (await call('shell_io', { shellId: again.shellId, cursor: 'start' })).output.replace(/\s+/g, ' '), { timeout: 15_000 }).toContain("The person's comments on lines: README.md:1 call it the ended app");
    await call('agent_stop', { shellId: again.shellId, revoke: true });
  });

  it('refuses a follow-up with repo or base, and one on a handoff that is not rejected', async () => {
    const repo = makeRepo(path.join(runner.home.root, 'other'), { 'README.md': '# other\n' });
    const { agent } = await call('agent_start', { client: 'command', command: [script], cwd: repo, task: 'Work' });
    await expect(call('agent_start', { client: 'command', command: [script], cwd: repo, task: 't', continues: agent.handoffId, repo })).rejects.toThrow(/leave repo and base out/);
    await expect(call('agent_start', { client: 'command', command: [script], cwd: repo, task: 't', continues: agent.handoffId })).rejects.toThrow(/only a rejected handoff's work is continued/);
    await call('agent_stop', { shellId: agent.shellId, revoke: true });
  });

  it("goes on with the client's own conversation where its --help says it can", () => {
    expect(AGENT_CLIENTS['claude-code'].resume?.(['--', 'next'], true)).toEqual(['--continue', '--', 'next']);
    expect(AGENT_CLIENTS.codex.resume?.(['-c', 'x'], false)).toEqual(['resume', '--last', '-c', 'x']);
    expect(AGENT_CLIENTS.codex.resume?.(['--', 'next'], true)).toBeNull(); // its one positional is a session id: a prompt starts anew
    expect(AGENT_CLIENTS['gemini-cli'].resume?.([], false)).toEqual(['--resume=latest']);
    expect(AGENT_CLIENTS.opencode.resume?.([], false)).toEqual(['--continue']);
    expect(AGENT_CLIENTS.command.resume).toBeUndefined();
  });
});
