/**
 * The real Codex, Gemini CLI and opencode started by the room on a task (agent_start with task, issue 45): each
 * lands in the handoff's own worktree (the working folder of its processes), with the task's text on its first
 * screen, and the handoff exists, addressed to it and accepted by it. Codex talks to the scripted model of
 * test/helpers/scripted-model.ts; Gemini CLI is given an API key whose model answers from nowhere (its screen
 * shows the task all the same); opencode shows it in its prompt. Claude Code's is in prompts-live.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo } from '../helpers/git-repo';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { startScriptedModel, type ScriptedModel } from '../helpers/scripted-model';
import { scriptedHome, signInCodex, signInGemini } from '../helpers/scripted-homes';

const BIN = path.join(__dirname, 'node_modules', '.bin');
const missing = ['codex', 'gemini', 'opencode'].filter((c) => !fs.existsSync(path.join(BIN, c)));
const reason = missing.length > 0 ? `not installed: ${missing.join(', ')}; run "npm install --prefix test/clients"` : '';

let model: ScriptedModel;
let runner: TestRunner;
let home: string;
let work: string;

beforeAll(async () => {
  if (reason) return;
  model = await startScriptedModel();
  // in the user's home: Gemini CLI reads no settings file from under a folder anyone may write (/tmp)
  ({ home, work } = scriptedHome('tasks'));
  signInCodex({ home, work }, model.url, { trustWork: false });
  signInGemini({ home, work }, { security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } }, ui: { theme: 'Default' } });
  Object.assign(process.env, {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    PATH: `${BIN}:${process.env.PATH ?? ''}`,
    OPENAI_API_KEY: 'sk-scripted',
    GEMINI_API_KEY: 'scripted-gemini-key',
    GOOGLE_GEMINI_BASE_URL: model.url,
    DISABLE_TELEMETRY: '1',
  });
  runner = await startTestRunner();
}, 60_000);

afterAll(async () => {
  await runner?.close();
  await model?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

const op = () => runner.running.engine.operator();
const screen = async (shellId: string) => (await runner.running.engine.call(op(), 'shell_io', { shellId, format: 'screen' })).output;
const output = async (shellId: string) => (await runner.running.engine.call(op(), 'shell_io', { shellId, cursor: 'start', maxBytes: 1024 * 1024 })).output;

/** The working folders of a process and everything under it (the client, inside its sandbox). */
function cwdsUnder(pid: number): string[] {
  const children = new Map<number, number[]>();
  for (const p of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(fs.readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(p)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: string[] = [];
  const walk = (p: number) => {
    try {
      out.push(fs.readlinkSync(`/proc/${p}/cwd`));
    } catch {
      // gone, or not readable
    }
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

describe.skipIf(reason !== '')(`real CLIs started on a task${reason ? ` (skipped: ${reason})` : ''}`, () => {
  for (const client of ['codex', 'gemini-cli', 'opencode'] as const) {
    it(`${client}: lands in the handoff's worktree with the task on its first screen; the handoff is addressed to it`, { timeout: 150_000 }, async () => {
      const repo = makeRepo(path.join(work, `app-${client}`), { 'README.md': '# app\n' });
      const task = `Say hello from ${client} in the readme`;
      const { agent } = await runner.running.engine.call(op(), 'agent_start', { client, cwd: repo, task, cols: 140, rows: 45 });
      const { handoff } = await runner.running.engine.call(op(), 'handoff_get', { handoffId: agent.handoffId as string });
      expect(handoff).toMatchObject({ owner: op().name, to: agent.participant, assignee: agent.participant, status: 'accepted', summary: task, workspace: { state: 'ready', path: agent.cwd } });
      expect(agent.cwd).not.toBe(repo);
      const shell = (await runner.running.engine.call(op(), 'shell_list', {})).shells.find((s) => s.id === agent.shellId);
      // its processes work in the worktree (the terminal's own and the client's, inside the sandbox)
      await expect.poll(() => cwdsUnder(shell?.pid ?? 0).filter((c) => c === agent.cwd).length, { timeout: 30_000, interval: 250 }).toBeGreaterThan(1);
      // a folder trust question first, where it asks one: answered, as the person would
      await expect.poll(async () => `${await screen(agent.shellId)}\n${await output(agent.shellId)}`, { timeout: 60_000, interval: 500 }).toMatch(/Say hello from|trust/i);
      if (!(await screen(agent.shellId)).includes('Say hello from') && /trust/i.test(await screen(agent.shellId))) {
        await runner.running.engine.call(op(), 'shell_io', { shellId: agent.shellId, input: [{ key: 'Enter' }] });
      }
      await expect.poll(() => screen(agent.shellId), { timeout: 60_000, interval: 500 }).toContain(`Say hello from ${client}`);
      fs.mkdirSync(path.join(process.cwd(), 'test-output', 'agent-screens'), { recursive: true });
      fs.writeFileSync(path.join(process.cwd(), 'test-output', 'agent-screens', `${client}-task.txt`), await screen(agent.shellId));
      await runner.running.engine.call(op(), 'agent_stop', { shellId: agent.shellId, revoke: true });
    });
  }
});
