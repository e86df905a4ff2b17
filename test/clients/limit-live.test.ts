/**
 * The real opencode at a usage limit, started by the room (agent_start) against a model server of the test's own
 * that answers every model request as Anthropic does at a plan's limit (429 rate_limit_error "Claude AI usage
 * limit reached", retry-after: 3 hours, the unified rate-limit headers; as test/fixtures/limit-screens/capture.mjs).
 * opencode retries it by itself at the retry-after and counts down to it on its status line; the room reads the
 * run as limited until then, says so once (agent.limited), and with the default policy (ask) types nothing.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { realClients } from '../helpers/real-clients';
import { scriptedHome, signInOpencode } from '../helpers/scripted-homes';

const { bin: BIN, reason } = realClients(['opencode']);
const RESET_S = 3 * 3600;

let runner: TestRunner;
let server: http.Server;
let home: string;
let work: string;
let requests = 0;
const saved = { ...process.env };

beforeAll(async () => {
  if (reason) return;
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (!(req.url ?? '').endsWith('/messages')) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
      requests += 1;
      const resetAt = String(Math.floor(Date.now() / 1000) + RESET_S);
      res
        .writeHead(429, {
          'content-type': 'application/json',
          'retry-after': String(RESET_S),
          'x-should-retry': 'false',
          'anthropic-ratelimit-unified-status': 'rejected',
          'anthropic-ratelimit-unified-reset': resetAt,
          'anthropic-ratelimit-unified-representative-claim': 'five_hour',
        })
        .end(JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Claude AI usage limit reached' }, request_id: 'req_scripted' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const model = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ({ home, work } = scriptedHome('limit'));
  signInOpencode({ home, work }, model);
  Object.assign(process.env, { OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_MODELS_FETCH: '1', HOME: home, PATH: `${BIN}:${process.env.PATH ?? ''}`, TMPDIR: home });
  try {
    runner = await startTestRunner({ limits: { agentWatchTickMs: 100 } });
  } finally {
    for (const k of ['OPENCODE_DISABLE_AUTOUPDATE', 'OPENCODE_DISABLE_MODELS_FETCH', 'TMPDIR']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
}, 60_000);

afterAll(async () => {
  await runner?.close();
  await new Promise((r) => (server ? server.close(r) : r(null)));
  process.env.HOME = saved.HOME;
  process.env.PATH = saved.PATH;
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

const op = () => runner.running.engine.operator();
const call = <M extends Parameters<TestRunner['running']['engine']['call']>[1]>(method: M, input: unknown) => runner.running.engine.call(op(), method, input);
const screen = async (shellId: string) => (await call('shell_io', { shellId, format: 'screen' })).output;
const agentOf = async (shellId: string) => (await call('agent_list', {})).agents.find((a) => a.shellId === shellId);
const shellOf = async (shellId: string) => (await call('shell_list', {})).shells.find((s) => s.id === shellId);
const kinds = async (shellId: string) =>
  (await call('workspace_history', { limit: 200 })).events
    .filter((e) => e.kind.startsWith('agent.') && e.kind !== 'agent.started' && e.kind !== 'agent.ended' && (e.data as { shellId?: string }).shellId === shellId)
    .map((e) => e.kind);

describe.skipIf(reason !== '')(`the real opencode at its provider's usage limit${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('reads limited until the retry it counts down to, says so once, and types nothing (policy ask)', { timeout: 120_000 }, async () => {
    const { agent } = await call('agent_start', { client: 'opencode', cwd: work, cols: 120, rows: 40 });
    expect(agent.watch.onLimit).toBe('ask');
    await expect.poll(() => screen(agent.shellId), { timeout: 45_000, interval: 500 }).toMatch(/Ask anything/);
    await call('shell_io', { shellId: agent.shellId, input: [{ text: 'Say hello' }] });
    await new Promise((r) => setTimeout(r, 300));
    await call('shell_io', { shellId: agent.shellId, input: [{ key: 'Enter' }] });
    const asked = Date.now();
    await expect.poll(async () => (await agentOf(agent.shellId))?.watch.limited?.text ?? `not limited; screen:\n${await screen(agent.shellId)}`, { timeout: 45_000, interval: 250 }).toMatch(/^Claude AI usage limit reached \[retrying in (?:3h|2h 59m) attempt #1\]$/);
    expect(requests).toBeGreaterThan(0);
    const listed = await agentOf(agent.shellId);
    // until: when opencode itself retries, 3 hours on (its countdown shows whole minutes: "3h" in the first
    // moments, "2h 59m" after; read a little after the prompt, so up to a minute either way)
    const until = Date.parse(listed?.watch.limitedUntil ?? '');
    expect(until - asked).toBeGreaterThan((RESET_S - 120) * 1000);
    expect(until - asked).toBeLessThanOrEqual(RESET_S * 1000 + 60_000);
    expect(listed?.watch.limited?.resumeAt).toBeNull();
    expect((await shellOf(agent.shellId))?.condition?.limited?.until).toBe(listed?.watch.limitedUntil);
    const typed = (await shellOf(agent.shellId))?.lastInput;
    // its countdown and spinner redraw the line many times over: still one limit, and nothing typed
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await screen(agent.shellId)).toMatch(/\[retrying in (?:3h|2h 5\dm) attempt #1\]/);
    expect(await kinds(agent.shellId)).toEqual(['agent.limited']);
    expect((await shellOf(agent.shellId))?.lastInput).toEqual(typed);
    expect(typed?.by).not.toBe('commonroom');
    // it retries by itself: the room never types its continue for it, not even when the person asks
    await expect(call('agent_limit', { shellId: agent.shellId, action: 'resume_now' })).rejects.toThrow(/retries by itself at its reset/);
    expect((await shellOf(agent.shellId))?.lastInput).toEqual(typed);
    await call('agent_stop', { shellId: agent.shellId, revoke: true });
  });
});
