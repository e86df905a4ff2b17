/**
 * An agent started on a task (agent_start with task): the room hands the task over as the person's handoff to the
 * agent's own participant, accepts it for the agent (so a repository's worktree is made first), and starts the
 * client in that worktree with the task as its first prompt (COMMONROOM_TASK and COMMONROOM_HANDOFF in its
 * environment for any command; each CLI's own prompt argument besides). Real room, real git, a real process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoffView } from '../../../src-main/common/handoff-dto';
import { makeRepo } from '../../helpers/git-repo';
import { worktreeEnv } from '../../../src-main/common/worktree-env';
import { startTestRunner, type TestRunner } from '../../helpers/runner';

let runner: TestRunner;
let script: string;
beforeAll(async () => {
  runner = await startTestRunner();
  script = path.join(runner.home.root, 'show-task.sh');
  // what the agent sees: where it starts, its handoff, its first prompt (then it waits, as a client at its prompt)
  fs.writeFileSync(script, '#!/bin/sh\necho "PWD=$(pwd)"\necho "HANDOFF=$COMMONROOM_HANDOFF"\necho "PORTS=$PORT $COMMONROOM_PORT_BASE $COMMONROOM_PORT_COUNT $COMMONROOM_WORKTREE"\nprintf "TASK=%s\\n" "$COMMONROOM_TASK"\nexec sleep 60\n', { mode: 0o755 });
}, 60_000);
afterAll(() => runner?.close());

const op = () => runner.running.engine.operator();
const call = <M extends Parameters<TestRunner['running']['engine']['call']>[1]>(method: M, input: unknown) => runner.running.engine.call(op(), method, input as never);
const output = async (shellId: string) => (await call('shell_io', { shellId, cursor: 'start' })).output;
const handoffs = async () => (await call('handoff_list', { limit: 200 })).handoffs as HandoffView[];

describe('an agent started on a task', () => {
  it('in a repository: the handoff is the person\'s to the agent, accepted, and the agent starts in its own worktree with the task as its first prompt', async () => {
    const repo = makeRepo(path.join(runner.home.root, 'app'), { 'README.md': '# app\n' });
    const { agent } = await call('agent_start', { client: 'command', command: [script], cwd: repo, task: 'Make the readme say hello' });
    expect(agent.handoffId).toMatch(/^hf_/);
    const { handoff } = await call('handoff_get', { handoffId: agent.handoffId as string });
    expect(handoff).toMatchObject({ owner: op().name, to: agent.participant, assignee: agent.participant, status: 'accepted', summary: 'Make the readme say hello' });
    expect(handoff.workspace).toMatchObject({ state: 'ready', repo: fs.realpathSync(repo), baseBranch: 'main', path: agent.cwd });
    expect(agent.cwd).not.toBe(repo);
    await expect.poll(() => output(agent.shellId), { timeout: 15_000 }).toContain(`PWD=${agent.cwd}`);
    const seen = await output(agent.shellId);
    expect(seen).toContain(`HANDOFF=${agent.handoffId}`);
    expect(seen).toMatch(/TASK=Make the readme say hello/);
    expect(seen).toContain(`call the commonroom tool handoff_complete with handoffId "${agent.handoffId}"`);
    expect(seen).toContain(`on branch commonroom/${agent.handoffId}`);
    // its worktree's own ports and name, in its environment, its first prompt and the handoff's workspace
    const own = worktreeEnv(agent.handoffId as string);
    expect(seen).toContain(`PORTS=${own.PORT} ${own.COMMONROOM_PORT_BASE} 64 ${agent.handoffId}`);
    expect(seen).toContain(`ports ${own.PORT}–${Number(own.PORT) + 63} are this worktree's own`);
    expect(handoff.workspace?.env).toEqual(own);
    // it is listed with its handoff, and the start is in the room's history with it
    expect((await call('agent_list', {})).agents.find((a) => a.shellId === agent.shellId)?.handoffId).toBe(agent.handoffId);
    await call('agent_stop', { shellId: agent.shellId, revoke: true });
  });

  it('outside a repository: the handoff has no workspace and the agent starts in the folder given', async () => {
    const plain = fs.mkdtempSync(path.join(runner.home.root, 'plain-'));
    const { agent } = await call('agent_start', { client: 'command', command: [script], cwd: plain, task: 'Write notes' });
    const { handoff } = await call('handoff_get', { handoffId: agent.handoffId as string });
    expect(handoff.workspace ?? null).toBeNull();
    expect(agent.cwd).toBe(plain);
    await expect.poll(() => output(agent.shellId), { timeout: 15_000 }).toContain(`PWD=${plain}`);
    await call('agent_stop', { shellId: agent.shellId, revoke: true });
  });

  it('refuses repo or base without a task, a base outside a repository, and a relative repo, leaving no handoff behind', async () => {
    const plain = fs.mkdtempSync(path.join(runner.home.root, 'plain-'));
    const before = (await handoffs()).length;
    await expect(call('agent_start', { client: 'command', command: [script], cwd: plain, repo: plain })).rejects.toThrow(/repo, base and continues are for a task: give task too/);
    await expect(call('agent_start', { client: 'command', command: [script], cwd: plain, task: 't', base: 'main' })).rejects.toThrow(/base is for a task in a repository: give repo, or a cwd inside a git repository/);
    await expect(call('agent_start', { client: 'command', command: [script], cwd: plain, task: 't', repo: 'app' })).rejects.toThrow(/repo "app" is a relative path/);
    await expect(call('agent_start', { client: 'command', command: [script], cwd: plain, task: 't', repo: plain })).rejects.toThrow(/not in a git repository/);
    expect((await handoffs()).length).toBe(before);
    // nor a participant with a live token: the ones made for the refused runs are revoked
    const live = (await call('participant_list', {})).participants.filter((p: { revokedAt: string | null; name: string }) => p.revokedAt === null && p.name.startsWith('agent'));
    expect(live).toEqual([]);
  });
});
