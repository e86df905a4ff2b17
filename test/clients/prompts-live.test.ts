/**
 * The real Claude Code, Codex, Gemini CLI and opencode, started by the room (agent_start) and driven through real turns against a
 * scripted model server of the test's own (test/helpers/scripted-model.ts): asked to run a shell command and to
 * call one of the room's MCP tools, each shows its own permission prompt while it keeps drawing (Claude Code
 * blinks a dot, Codex redraws), so the quiet the screen rules used to wait for never comes. The room reads each
 * "waiting for you" within 2 s of its drawing, with the prompt's words, as one wait (one notification: the UI
 * notifies once per wait); answered, it reads working while the command works and idle once the turn is done,
 * never waiting again, and the command or tool runs (through the room, for the tool).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShellView } from '../../src-main/common/methods/shells';
import { REPO } from '../helpers/env';
import { makeRepo } from '../helpers/git-repo';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model';
import { SCRIPTED_KEY, scriptedHome, signInClaude, signInCodex, signInGemini, signInOpencode } from '../helpers/scripted-homes';
import { realClients } from '../helpers/real-clients';

const { bin: BIN, reason } = realClients(['claude', 'codex', 'gemini', 'opencode']);

let model: ScriptedModel;
let runner: TestRunner;
let work: string;
let home: string;

beforeAll(async () => {
  if (reason) return;
  model = await startScriptedModel();
  // in the user's home, the room's folder too: Gemini CLI reads no settings file under a folder anyone may write
  // (/tmp), the room's per-run one included; each CLI signed in, its first-run questions answered, the folder trusted
  ({ home, work } = scriptedHome('prompts'));
  signInClaude({ home, work });
  signInCodex({ home, work }, model.url, { approvalPolicy: 'on-request' });
  signInGemini({ home, work });
  // opencode asking before every tool
  signInOpencode({ home, work }, model.url, { '*': 'ask', bash: 'ask' });
  // the room process (this test's) finds the clients on its PATH, and its agents inherit its environment
  Object.assign(process.env, {
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    GEMINI_API_KEY: 'scripted-gemini-key',
    GOOGLE_GEMINI_BASE_URL: model.url,
    HOME: home,
    PATH: `${BIN}:${process.env.PATH ?? ''}`,
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: SCRIPTED_KEY,
    OPENAI_API_KEY: 'sk-scripted',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  });
  const tmp = process.env.TMPDIR;
  process.env.TMPDIR = home;
  try {
    runner = await startTestRunner();
  } finally {
    if (tmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmp;
  }
}, 60_000);

afterAll(async () => {
  await runner?.close();
  await model?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

const op = () => runner.running.engine.operator();

async function statusOf(shellId: string): Promise<ShellView['status']> {
  const shell = (await runner.running.engine.call(op(), 'shell_list', {})).shells.find((s) => s.id === shellId);
  if (!shell) throw new Error(`no shell ${shellId}`);
  return shell.status;
}

/** Screens as the room read them, kept for the rules' unit tests (test/engine/shells/fixtures/screens/ takes copies). */
const CAPTURED = path.join(REPO, 'test-output', 'screens-text');
const capture = async (shellId: string, name: string) => {
  fs.mkdirSync(CAPTURED, { recursive: true });
  fs.writeFileSync(path.join(CAPTURED, `${name}.txt`), await screen(shellId));
};

/** 'idle', or the status with its reason and the screen that gave it (so a failure says which rule matched what). */
const idleOr = async (shellId: string): Promise<string> => {
  const status = await statusOf(shellId);
  return status.state === 'idle' ? 'idle' : `${status.state}${status.reason ? ` (${status.reason})` : ''} on this screen:\n${await screen(shellId)}`;
};
const type = (shellId: string, input: ({ text: string } | { key: string })[]) => runner.running.engine.call(op(), 'shell_io', { shellId, input });
const screen = async (shellId: string) => (await runner.running.engine.call(op(), 'shell_io', { shellId, format: 'screen' })).output;

describe.skipIf(reason !== '')(`a real CLI's permission prompt reads waiting while the CLI keeps drawing${reason ? ` (skipped: ${reason})` : ''}`, () => {
  // a command that works a few seconds (the CLI draws its progress), then leaves a file to show it ran
  const command = (made: string) => `sleep 3 && touch ${made}`;
  const cases = [
    { client: 'claude-code', kind: 'shell command', ask: (made: string) => `call Bash ${JSON.stringify({ command: command(made), description: 'wait, then make a file' })}`, prompt: /Do you want to proceed\?/, made: 'made-by-claude' },
    { client: 'claude-code', kind: 'MCP tool', ask: () => 'call room_info', prompt: /Do you want to proceed\?/, result: /"schemaVersion"/ },
    // Codex asks before a command that asks to run outside its sandbox (approval_policy on-request)
    { client: 'codex', kind: 'shell command', ask: (made: string) => `call exec_command ${JSON.stringify({ cmd: command(made), sandbox_permissions: 'require_escalated', justification: 'wait, then make a file' })}`, prompt: /Would you like to run the following command\?/, made: 'made-by-codex' },
    // Codex runs a read-only tool without asking: it asks for one that changes something
    { client: 'codex', kind: 'MCP tool', ask: () => 'call shell_open', prompt: /Allow the commonroom MCP server to run tool "shell_open"\?/, result: /"shell"/ },
    { client: 'gemini-cli', kind: 'shell command', ask: (made: string) => `call run_shell_command ${JSON.stringify({ command: command(made), description: 'wait, then make a file' })}`, prompt: /Allow execution of/, made: 'made-by-gemini' },
    { client: 'gemini-cli', kind: 'MCP tool', ask: () => 'call room_info', prompt: /Allow execution of MCP tool "room_info"/, result: /commonroom [^,]+, schema \d+/ },
    { client: 'opencode', kind: 'shell command', ask: (made: string) => `call bash ${JSON.stringify({ command: command(made), description: 'wait, then make a file' })}`, prompt: /Permission required/, made: 'made-by-opencode' },
    { client: 'opencode', kind: 'MCP tool', ask: () => 'call room_info', prompt: /Permission required/, result: /commonroom [^,]+, schema \d+/ },
  ] as const;
  const ready = { 'claude-code': /❯/, codex: /Ask Codex to do anything|›/, 'gemini-cli': /Type your message/, opencode: /Ask anything/ } as const;
  for (const c of cases) {
    it(`${c.client}, its ${c.kind} prompt: waiting within 2 s with its words, one wait; answered, working, then idle, and it ran`, { timeout: 120_000 }, async () => {
      const { agent } = await runner.running.engine.call(op(), 'agent_start', { client: c.client, cwd: work, cols: 120, rows: 40 });
      await expect.poll(() => screen(agent.shellId), { timeout: 45_000, interval: 500 }).toMatch(ready[c.client]);
      await expect.poll(() => idleOr(agent.shellId), { timeout: 30_000, interval: 250 }).toBe('idle');
      // every status the room gives it from here, as it changes (the UI notifies once per wait)
      const changes: { state: string; reason?: string; at: number }[] = [];
      const off = runner.running.engine.shells.get(op(), agent.shellId).onStatusChange((st) => changes.push({ state: st.state, ...(st.reason ? { reason: st.reason } : {}), at: Date.now() }));
      try {
        const made = 'made' in c ? c.made : '';
        await type(agent.shellId, [{ text: c.ask(made) }]);
        await new Promise((r) => setTimeout(r, 300));
        await type(agent.shellId, [{ key: 'Enter' }]);
        // when its prompt is first on screen (read every 100 ms: the room's own screen, as a viewer's)
        await expect.poll(() => screen(agent.shellId), { timeout: 30_000, interval: 100 }).toMatch(c.prompt);
        const shownAt = Date.now();
        await expect.poll(() => changes.find((x) => x.state === 'waiting'), { timeout: 10_000, interval: 100 }).toBeTruthy();
        const waiting = changes.find((x) => x.state === 'waiting');
        expect(waiting?.reason).toMatch(c.prompt);
        const what = c.kind === 'MCP tool' ? 'mcp' : 'shell';
        await capture(agent.shellId, `${c.client}.${what}-permission.waiting`);
        expect((waiting?.at ?? Infinity) - shownAt, 'ms from the prompt on screen to waiting').toBeLessThanOrEqual(2_000);
        // it keeps drawing while it waits: still one wait, with the same words, 3 s on
        await new Promise((r) => setTimeout(r, 3_000));
        expect((await statusOf(agent.shellId)).state).toBe('waiting');
        expect(changes.filter((x) => x.state === 'waiting')).toHaveLength(1);
        const answeredAt = Date.now();
        await type(agent.shellId, [{ key: 'Enter' }]); // the first choice: allow, once
        if ('made' in c) {
          // the command works for a few seconds: working while it does
          await expect.poll(async () => (await statusOf(agent.shellId)).state, { timeout: 10_000, interval: 100 }).toBe('working');
          await expect.poll(() => fs.existsSync(path.join(work, c.made)), { timeout: 30_000, interval: 250 }).toBe(true);
        } else {
          await expect.poll(() => model.requests.some((r) => r.toolResult !== null && c.result.test(r.toolResult)), { timeout: 30_000, interval: 250 }).toBe(true);
        }
        await expect.poll(() => idleOr(agent.shellId), { timeout: 30_000, interval: 250 }).toBe('idle');
        await capture(agent.shellId, `${c.client}.${what}-answered.idle`);
        const after = changes.filter((x) => x.at >= answeredAt);
        expect(after.filter((x) => x.state === 'waiting'), 'waiting again after the answer').toEqual([]);
        console.log(`${c.client} ${c.kind}: waiting ${(waiting?.at ?? 0) - shownAt} ms after its prompt was on screen; then ${after.map((x) => `${x.state} +${x.at - answeredAt} ms`).join(', ')}`);
      } finally {
        off();
      }
      await runner.running.engine.call(op(), 'agent_stop', { shellId: agent.shellId, revoke: true });
    });
  }

  it('claude-code started on a task in a repository: it starts in the handoff\'s own worktree with the task as its first prompt, which reaches the model, and the room\'s tools are there for its next turn', { timeout: 120_000 }, async () => {
    const repo = makeRepo(path.join(work, 'app'), { 'README.md': '# app\n' });
    const { agent } = await runner.running.engine.call(op(), 'agent_start', { client: 'claude-code', cwd: repo, task: 'call room_info', cols: 120, rows: 40 });
    const { handoff } = await runner.running.engine.call(op(), 'handoff_get', { handoffId: agent.handoffId as string });
    expect(handoff).toMatchObject({ status: 'accepted', assignee: agent.participant, workspace: { state: 'ready', path: agent.cwd } });
    // a folder Claude Code has not seen: it asks the person to trust it first (the room reads that as waiting for you)
    await expect.poll(() => screen(agent.shellId), { timeout: 45_000, interval: 250 }).toMatch(/trust|❯/i);
    if (/trust/i.test(await screen(agent.shellId))) {
      await expect.poll(async () => (await statusOf(agent.shellId)).state, { timeout: 10_000, interval: 250 }).toBe('waiting');
      await type(agent.shellId, [{ key: 'Enter' }]);
    }
    // its first turn is the task (with the room's word on where it works and how to finish): the model asks for the tool
    await expect.poll(() => model.requests.some((r) => (r.lastUser ?? '').includes(`this is handoff ${agent.handoffId}`)), { timeout: 45_000, interval: 250 }).toBe(true);
    const first = model.requests.find((r) => (r.lastUser ?? '').includes(`this is handoff ${agent.handoffId}`));
    expect(first?.lastUser).toContain(`You work in a git worktree of its own, ${agent.cwd}`);
    // the transcript shows it once Claude Code has drawn the turn (the request can go out first)
    await expect.poll(() => screen(agent.shellId), { timeout: 30_000, interval: 250 }).toContain('call room_info');
    // (that first turn can go out before the room's MCP server is connected: Claude Code sends a prompt given on its
    // command line at once). The session then has the room's tools: the next turn calls one
    await expect.poll(() => idleOr(agent.shellId), { timeout: 30_000, interval: 250 }).toBe('idle');
    await type(agent.shellId, [{ text: 'call room_info' }]);
    await new Promise((r) => setTimeout(r, 300));
    await type(agent.shellId, [{ key: 'Enter' }]);
    await expect.poll(() => screen(agent.shellId), { timeout: 30_000, interval: 250 }).toMatch(/Do you want to proceed\?/);
    await runner.running.engine.call(op(), 'agent_stop', { shellId: agent.shellId, revoke: true });
  });
});
