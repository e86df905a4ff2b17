import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShellView } from '../../../src-main/common/methods/shells';
import { startTestRunner, type TestRunner } from '../../helpers/runner';

/**
 * Agent status, live: the room starts a small program as an agent ("command") that goes through each state a
 * client CLI does, and the shell's status follows it, as shell_list and agent_list report it.
 */
let runner: TestRunner;
let dir: string;
beforeAll(async () => {
  runner = await startTestRunner();
  dir = fs.mkdtempSync(path.join(path.dirname(runner.running.engine.room.location.markdownPath), 'agent-'));
});
afterAll(() => runner?.close());

const op = () => runner.running.engine.operator();
const call = <M extends Parameters<TestRunner['running']['engine']['call']>[1]>(method: M, input: unknown) => runner.running.engine.call(op(), method, input);

async function statusUntil(shellId: string, want: ShellView['status']['state'], timeoutMs = 15_000): Promise<ShellView['status']> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const shell = (await call('shell_list', {})).shells.find((s) => s.id === shellId);
    if (shell?.status.state === want) return shell.status;
    if (Date.now() > deadline) throw new Error(`shell ${shellId} never read ${want}: it reads ${JSON.stringify(shell?.status)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The room's history of one agent run, oldest first, as Activity reads it (workspace_history). */
async function agentEvents(shellId: string): Promise<Record<string, unknown>[]> {
  const { events } = await call('workspace_history', { limit: 200 });
  return events
    .filter((e) => e.kind.startsWith('agent.') && (e.data as { shellId?: string }).shellId === shellId)
    .map((e) => {
      const d = e.data as { exitCode?: number | null; stopped?: boolean };
      return { kind: e.kind, actor: e.actor, subject: e.subject, ...(typeof d.exitCode === 'number' ? { exitCode: d.exitCode } : {}), ...(d.stopped === undefined ? {} : { stopped: d.stopped }) };
    });
}

describe('an agent the room starts', () => {
  it("needs a folder to work in when the room's own is in Commonroom's data folder (read-only to agents)", async () => {
    await expect(call('agent_start', { client: 'command', command: ['/bin/sh'] })).rejects.toThrow(/say which folder the agent works in \(cwd\): this room's own folder, .* is in Commonroom's data folder, which agents cannot write/);
  });

  it('reads working, then idle, then waiting on its bell until typed into, then exited with its code', { timeout: 60_000 }, async () => {
    const script = path.join(dir, 'mimic.sh');
    fs.writeFileSync(
      script,
      [
        '#!/bin/sh',
        'i=0; while [ $i -lt 20 ]; do echo "working $i"; i=$((i+1)); sleep 0.1; done',
        'echo "> "; sleep 3',
        "printf '\\033]9;mimic wants an answer\\007'",
        'read answer',
        'echo "got $answer"; sleep 0.2',
        'exit 3',
      ].join('\n'),
      { mode: 0o755 },
    );
    const { agent } = await call('agent_start', { client: 'command', command: [script], cwd: dir });
    expect(agent).toMatchObject({ client: 'command', participant: 'agent', shell: { agent: { client: 'command', participant: 'agent' } } });
    expect(agent.shell.status.state).toBe('working');
    await statusUntil(agent.shellId, 'idle');
    // another caller waits for it to ask the person, in one call, woken by the change
    const waited = await call('shell_io', { shellId: agent.shellId, wait: { until: 'status', status: ['waiting'], timeoutMs: 20_000 } });
    expect(waited).toMatchObject({ wait: { reason: 'status' }, status: { state: 'waiting', reason: 'mimic wants an answer' } });
    const waiting = await statusUntil(agent.shellId, 'waiting');
    expect(waiting.reason).toBe('mimic wants an answer');
    await call('shell_io', { shellId: agent.shellId, text: 'yes\n' });
    const exited = await statusUntil(agent.shellId, 'exited');
    expect(exited.reason).toBe('exit code 3');
    // the run's participant is the agent's own, and its terminal was opened as it
    const listed = (await call('agent_list', {})).agents.find((a) => a.shellId === agent.shellId);
    expect(listed?.shell.owner).toBe('agent');
    // Activity has its start (by the person) and its end (by itself, with its code), naming its terminal
    await expect.poll(() => agentEvents(agent.shellId)).toEqual([
      { kind: 'agent.started', actor: 'operator', subject: 'agent' },
      { kind: 'agent.ended', actor: 'agent', subject: 'agent', exitCode: 3, stopped: false },
    ]);
  });

  it('stopped by the person: Activity says who stopped it', async () => {
    const { agent } = await call('agent_start', { client: 'command', command: ['/bin/sleep', '600'], cwd: dir });
    await call('agent_stop', { shellId: agent.shellId, revoke: true });
    await expect.poll(() => agentEvents(agent.shellId)).toEqual([
      { kind: 'agent.started', actor: 'operator', subject: agent.participant },
      { kind: 'agent.ended', actor: 'operator', subject: agent.participant, stopped: true },
    ]);
  });
  it("runs as a person's terminal wherever the room was started: CI markers are not passed on (with CI=true Gemini CLI runs headless and exits 41)", async () => {
    const saved = { CI: process.env.CI, GITHUB_ACTIONS: process.env.GITHUB_ACTIONS };
    process.env.CI = 'true';
    process.env.GITHUB_ACTIONS = 'true';
    try {
      const { agent } = await call('agent_start', { client: 'command', command: ['/bin/sh', '-c', 'echo "CI=${CI-unset} GA=${GITHUB_ACTIONS-unset} AGENT=$COMMONROOM_AGENT"; sleep 30'], cwd: dir });
      const r = await call('shell_io', { shellId: agent.shellId, cursor: 'start', wait: { until: 'match', pattern: 'AGENT=\\S+', timeoutMs: 15_000 } });
      expect(r.output).toContain(`CI=unset GA=unset AGENT=${agent.participant}`);
      await call('agent_stop', { shellId: agent.shellId, revoke: true });
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  });
});

describe('after a runner restart', () => {
  it("an agent's terminal is gone, its participant and history stay, and agent_list says how to start it again in the same folder", { timeout: 60_000 }, async () => {
    const { makeHome } = await import('../../helpers/env');
    const { startRunner } = await import('../../../src-main/server/runner');
    const home = makeHome();
    try {
      const first = await startRunner({ port: 0, paths: home.paths });
      const work = fs.mkdtempSync(path.join(home.root, 'work-'));
      const op1 = first.engine.operator();
      const { agent } = await first.engine.call(op1, 'agent_start', { client: 'command', command: ['/bin/sleep', '600'], cwd: work });
      await first.close();

      const second = await startRunner({ port: 0, paths: home.paths });
      try {
        const op2 = second.engine.operator();
        const listed = await second.engine.call(op2, 'agent_list', {});
        expect(listed.agents).toEqual([]);
        expect(listed.earlier).toEqual([expect.objectContaining({ participant: agent.participant, client: 'command', cwd: work, again: `ce agent start command --cwd ${work} --as ${agent.participant} -- …` })]);
        expect(second.engine.room.participants.byName(agent.participant)?.revokedAt).toBeNull();
        // started again as the same participant, in the same folder: it is running, and no longer "earlier"
        const again = await second.engine.call(op2, 'agent_start', { client: 'command', command: ['/bin/sleep', '600'], cwd: work, participant: agent.participant });
        expect(again.agent).toMatchObject({ participant: agent.participant, cwd: work });
        expect((await second.engine.call(op2, 'agent_list', {})).earlier).toEqual([]);
      } finally {
        await second.close();
      }
    } finally {
      home.cleanup();
    }
  });
});
