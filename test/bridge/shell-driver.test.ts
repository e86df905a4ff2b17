/**
 * A shell's size belongs to whoever drives it, for every kind of shell: two live views at different sizes (a
 * desktop's 160x45 panel and a phone's 44x30) through the UI door's connection logic against a real engine and
 * real PTYs. The person's own shells (opened by them, an agent the room started for them from the UI or `ce agent
 * start`, a tty stage of their graph) are driven by the first view that sizes them; a second view leaves the PTY
 * alone until it takes driving over ("Fit to panel"), and the first is told. An agent's shells (opened over
 * MCP, a stage of its graph) keep the agent's size whoever watches, until the person takes one over.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src-main/common/dto';
import type { ServerMessage } from '../../src-main/common/ui-protocol';
import { UiSession } from '../../src-main/bridge/ui-session';
import type { Engine } from '../../src-main/engine/engine';
import { BIN_CE } from '../helpers/env';
import { startTestRunner, type TestRunner } from '../helpers/runner';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let runner: TestRunner;
let bench: { engine: Engine; operator: Caller };
let agent: Caller;
let dir: string;
beforeAll(async () => {
  runner = await startTestRunner();
  const engine = runner.running.engine;
  bench = { engine, operator: engine.operator() };
  dir = fs.mkdtempSync(path.join(path.dirname(engine.room.location.markdownPath), 'agent-'));
  const added = await engine.call(bench.operator, 'participant_add', { name: 'sizer', capabilities: ['read', 'write'] });
  const as = engine.authenticate(added.token);
  if (!as) throw new Error('the agent token did not authenticate');
  agent = as;
}, 30_000);
afterAll(() => runner?.close());

type Driving = Extract<ServerMessage, { t: 'shell.driving' }>;

/** One live view (a browser tab's connection): attach, size, and what the room said about driving. */
function view(shellId: string) {
  const inbox: ServerMessage[] = [];
  const session = new UiSession(bench.engine, (m) => inbox.push(m), { mcpUrl: 'http://127.0.0.1:1/mcp' });
  session.open();
  session.handle({ t: 'shell.attach', shellId, from: 0 });
  const said = () => inbox.filter((m): m is Driving => m.t === 'shell.driving' && m.shellId === shellId).map((m) => m.driving);
  return {
    said,
    /** Sizes this view and returns the room's answer (driving or not). */
    size(cols: number, rows: number, take = false): boolean {
      const before = said().length;
      session.handle(take ? { t: 'shell.resize', shellId, cols, rows, take } : { t: 'shell.resize', shellId, cols, rows });
      const answer = said()[before];
      const error = inbox.find((m) => m.t === 'shell.error');
      if (answer === undefined) throw new Error(`no answer to the resize: ${JSON.stringify(error ?? inbox.slice(-3))}`);
      return answer;
    },
    leave: () => session.close(),
  };
}

async function sizeOf(shellId: string): Promise<string> {
  const shell = (await bench.engine.call(bench.operator, 'shell_list', {})).shells.find((s) => s.id === shellId);
  if (!shell) throw new Error(`shell ${shellId} is not listed`);
  return `${shell.cols}x${shell.rows}`;
}

async function stageShell(as: Caller, graphId: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const found = (await bench.engine.call(as, 'shell_list', {})).shells.find((s) => s.name.startsWith(`stage ${graphId}:`));
    if (found) return found.id;
    await sleep(25);
  }
  throw new Error('the tty stage never appeared as a shell');
}

const kinds: Record<string, () => Promise<string>> = {
  'opened by the person': async () => (await bench.engine.call(bench.operator, 'shell_open', { name: 'mine', shell: '/bin/sh', cols: 97, rows: 54 })).shell.id,
  'an agent started from the UI (+ New agent)': async () =>
    (await bench.engine.call(bench.operator, 'agent_start', { client: 'command', command: ['/bin/sleep', '600'], cwd: dir, cols: 97, rows: 54 })).agent.shellId,
  'an agent started with ce agent start': async () => {
    // the real ce, run beside the room (asynchronously: the room answers it from this process)
    const r = await promisify(execFile)(process.execPath, [BIN_CE, 'agent', 'start', 'command', '--json', '--', '/bin/sleep', '600'], { env: runner.home.env, cwd: dir, timeout: 20_000 });
    return (JSON.parse(r.stdout) as { agent: { shellId: string } }).agent.shellId;
  },
  "a tty stage of the person's graph": async () =>
    stageShell(bench.operator, (await bench.engine.call(bench.operator, 'tasks_run', { stages: [{ id: 'wait', command: 'sleep 600', tty: true }] })).graphId),
};

const agentKinds: Record<string, () => Promise<string>> = {
  'opened by an agent': async () => (await bench.engine.call(agent, 'shell_open', { name: 'theirs', shell: '/bin/sh', cols: 100, rows: 30 })).shell.id,
  "a tty stage of an agent's graph": async () => stageShell(agent, (await bench.engine.call(agent, 'tasks_run', { stages: [{ id: 'wait', command: 'sleep 600', tty: true }] })).graphId),
};

describe("a shell's size belongs to whoever drives it", () => {
  for (const [kind, open] of Object.entries(kinds)) {
    it(`${kind}: the first view drives, a phone watching leaves it alone, Fit to panel hands driving over`, { timeout: 30_000 }, async () => {
      const shellId = await open();
      const desktop = view(shellId);
      expect(desktop.size(160, 45)).toBe(true);
      expect(await sizeOf(shellId)).toBe('160x45');
      const phone = view(shellId);
      expect(phone.size(44, 30)).toBe(false);
      expect(await sizeOf(shellId)).toBe('160x45');
      // the phone leaves: the desktop still drives, and nothing shrank
      phone.leave();
      expect(await sizeOf(shellId)).toBe('160x45');
      expect(desktop.size(150, 40)).toBe(true);
      expect(await sizeOf(shellId)).toBe('150x40');
      // a phone that takes it over drives; the desktop is told and its own size no longer reaches the PTY
      const taker = view(shellId);
      expect(taker.size(44, 30, true)).toBe(true);
      expect(await sizeOf(shellId)).toBe('44x30');
      expect(desktop.said().at(-1)).toBe(false);
      expect(desktop.size(160, 45)).toBe(false);
      expect(await sizeOf(shellId)).toBe('44x30');
      taker.leave();
      desktop.leave();
    });
  }

  for (const [kind, open] of Object.entries(agentKinds)) {
    it(`${kind}: keeps the agent's size whoever watches, until the person takes it over`, { timeout: 30_000 }, async () => {
      const shellId = await open();
      const before = await sizeOf(shellId);
      const desktop = view(shellId);
      const phone = view(shellId);
      expect(desktop.size(160, 45)).toBe(false);
      expect(phone.size(44, 30)).toBe(false);
      expect(await sizeOf(shellId)).toBe(before);
      expect(desktop.size(160, 45, true)).toBe(true);
      expect(await sizeOf(shellId)).toBe('160x45');
      expect(phone.size(44, 30)).toBe(false);
      expect(await sizeOf(shellId)).toBe('160x45');
      // its owner sizes it again (shell_io's resize): the view that drove is told it no longer does
      await bench.engine.call(agent, 'shell_io', { shellId, resize: { cols: 100, rows: 30 } });
      expect(desktop.said().at(-1)).toBe(false);
      expect(desktop.size(160, 45)).toBe(false);
      expect(await sizeOf(shellId)).toBe('100x30');
      desktop.leave();
      phone.leave();
    });
  }
});
