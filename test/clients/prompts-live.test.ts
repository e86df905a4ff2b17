/**
 * The real Claude Code and Codex, started by the room (agent_start) and driven through a real turn against a
 * scripted model server of the test's own (test/helpers/scripted-model.ts): asked to call one of the room's MCP
 * tools, each shows its own permission prompt while it keeps drawing (Claude Code blinks a dot, Codex redraws),
 * so the quiet the screen rules used to wait for never comes. The room reads them "waiting for you" all the same,
 * with the prompt's words; answered, the tool runs through the room and its result reaches the model.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShellView } from '../../src-main/common/methods/shells';
import { makeRepo } from '../helpers/git-repo';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model';
import { realClients } from '../helpers/real-clients';

const { bin: BIN, reason } = realClients(['claude', 'codex']);

let model: ScriptedModel;
let runner: TestRunner;
let work: string;
const KEY = 'sk-ant-api03-scripted-model-key-for-the-room-tests-AAAA';

beforeAll(async () => {
  if (reason) return;
  model = await startScriptedModel();
  const home = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'commonroom-prompts-'));
  work = path.join(home, 'work');
  fs.mkdirSync(work);
  // each CLI signed in with a key for the scripted model, its first-run questions answered, the folder trusted
  fs.writeFileSync(
    path.join(home, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, theme: 'dark', customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] }, projects: { [work]: { hasTrustDialogAccepted: true, allowedTools: [] } } }),
  );
  fs.mkdirSync(path.join(home, '.codex'));
  fs.writeFileSync(
    path.join(home, '.codex', 'config.toml'),
    `model_provider = "scripted"\nmodel = "gpt-scripted"\n[model_providers.scripted]\nname = "scripted"\nbase_url = "${model.url}/v1"\nwire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n[projects."${work}"]\ntrust_level = "trusted"\n`,
  );
  // the room process (this test's) finds the clients on its PATH, and its agents inherit its environment
  Object.assign(process.env, {
    HOME: home,
    PATH: `${BIN}:${process.env.PATH ?? ''}`,
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: KEY,
    OPENAI_API_KEY: 'sk-scripted',
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  });
  runner = await startTestRunner();
}, 60_000);

afterAll(async () => {
  await runner?.close();
  await model?.close();
});

const op = () => runner.running.engine.operator();

async function statusOf(shellId: string): Promise<ShellView['status']> {
  const shell = (await runner.running.engine.call(op(), 'shell_list', {})).shells.find((s) => s.id === shellId);
  if (!shell) throw new Error(`no shell ${shellId}`);
  return shell.status;
}

const type = (shellId: string, input: ({ text: string } | { key: string })[]) => runner.running.engine.call(op(), 'shell_io', { shellId, input });
const screen = async (shellId: string) => (await runner.running.engine.call(op(), 'shell_io', { shellId, format: 'screen' })).output;

describe.skipIf(reason !== '')(`a real CLI's permission prompt reads waiting while the CLI keeps drawing${reason ? ` (skipped: ${reason})` : ''}`, () => {
  const cases = [
    { client: 'claude-code', tool: 'room_info', prompt: /Do you want to proceed\?/, result: /"schemaVersion"/ },
    // Codex runs a read-only tool without asking: it asks for one that changes something
    { client: 'codex', tool: 'shell_open', prompt: /Allow the commonroom MCP server to run tool "shell_open"\?/, result: /"shell"/ },
  ] as const;
  for (const c of cases) {
    it(`${c.client}: asked to call ${c.tool}, its prompt reads waiting with its words; answered, the call goes through the room`, { timeout: 120_000 }, async () => {
      const { agent } = await runner.running.engine.call(op(), 'agent_start', { client: c.client, cwd: work, cols: 120, rows: 40 });
      await expect.poll(() => screen(agent.shellId), { timeout: 45_000, interval: 500 }).toMatch(c.client === 'codex' ? /Ask Codex to do anything|›/ : /❯/);
      await expect.poll(async () => (await statusOf(agent.shellId)).state, { timeout: 30_000, interval: 250 }).toBe('idle');
      await type(agent.shellId, [{ text: `call ${c.tool}` }]);
      await new Promise((r) => setTimeout(r, 300));
      await type(agent.shellId, [{ key: 'Enter' }]);
      await expect.poll(() => screen(agent.shellId), { timeout: 30_000, interval: 250 }).toMatch(c.prompt);
      // it is still drawing while it asks; the room reads the question anyway, within a few of its looks
      await expect.poll(async () => statusOf(agent.shellId), { timeout: 10_000, interval: 250 }).toMatchObject({ state: 'waiting', reason: expect.stringMatching(c.prompt) });
      // and keeps reading it so while it waits (no flapping back to working)
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 250));
        expect((await statusOf(agent.shellId)).state).toBe('waiting');
      }
      await type(agent.shellId, [{ key: 'Enter' }]); // the first choice: allow, once
      await expect.poll(() => model.requests.some((r) => r.toolResult !== null && c.result.test(r.toolResult)), { timeout: 30_000, interval: 250 }).toBe(true);
      await expect.poll(async () => (await statusOf(agent.shellId)).state, { timeout: 30_000, interval: 250 }).toBe('idle');
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
    await expect.poll(async () => (await statusOf(agent.shellId)).state, { timeout: 30_000, interval: 250 }).toBe('idle');
    await type(agent.shellId, [{ text: 'call room_info' }]);
    await new Promise((r) => setTimeout(r, 300));
    await type(agent.shellId, [{ key: 'Enter' }]);
    await expect.poll(() => screen(agent.shellId), { timeout: 30_000, interval: 250 }).toMatch(/Do you want to proceed\?/);
    await runner.running.engine.call(op(), 'agent_stop', { shellId: agent.shellId, revoke: true });
  });
});
