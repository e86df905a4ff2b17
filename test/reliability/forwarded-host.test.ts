/**
 * The front door's Host check with forwards (docs/hosts.md, "An agent on a host"): the room accepts the Host
 * header `127.0.0.1:PORT` of a host's loopback only while it forwards that port to its endpoint for an agent's
 * run, and only for that run's participant; every other Host, and any browser Origin through it, is refused as
 * before (a page that rebinds a name to 127.0.0.1 sends its own name as Host). Here without SSH (the forward as
 * the engine says it stands); test/hosts/host-agent.test.ts makes a real one.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRunner, type TestRunner } from '../helpers/runner';

let runner: TestRunner;
let agentToken: string;
let otherToken: string;
const FORWARDED = '127.0.0.1:45871';

beforeAll(async () => {
  runner = await startTestRunner();
  const engine = runner.running.engine;
  agentToken = (await engine.call(engine.operator(), 'participant_add', { name: 'remote-agent', capabilities: ['read', 'write'] })).token;
  otherToken = (await engine.call(engine.operator(), 'participant_add', { name: 'other-agent', capabilities: ['read', 'write'] })).token;
  // what the hosts feature says while a run's forward stands
  engine.forwardedHost = (host) => (host === FORWARDED ? 'remote-agent' : null);
}, 60_000);
afterAll(() => runner?.close());

function post(path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  const port = Number(new URL(runner.running.mcpUrl).port);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Content-Length': Buffer.byteLength(body), ...headers } }, (res) => {
      let text = '';
      res.on('data', (b: Buffer) => (text += b.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
const roomInfo = (headers: Record<string, string>) => post('/api/room_info', headers, '{}');

describe('a forwarded Host header', () => {
  it("is accepted for the run's participant", async () => {
    const ok = await roomInfo({ Host: FORWARDED, Authorization: `Bearer ${agentToken}` });
    expect(ok.status, ok.body).toBe(200);
    expect(ok.body).toContain(runner.running.engine.room.id);
  });

  it("is refused for anyone else's token, the operator's included", async () => {
    const op = runner.token;
    for (const token of [otherToken, op]) {
      const refused = await roomInfo({ Host: FORWARDED, Authorization: `Bearer ${token}` });
      expect(refused.status).toBe(403);
      expect(refused.body).toContain("that forward is for remote-agent's run only");
    }
  });

  it('leaves every other Host refused, and a browser Origin through it too', async () => {
    for (const host of ['127.0.0.1:45872', 'evil.example:45871', `evil.example:${new URL(runner.running.mcpUrl).port}`, '10.0.0.1:45871']) {
      const refused = await roomInfo({ Host: host, Authorization: `Bearer ${agentToken}` });
      expect(refused.status, host).toBe(403);
      expect(refused.body).toContain('forbidden Host header');
    }
    const page = await roomInfo({ Host: FORWARDED, Origin: `http://${FORWARDED}`, Authorization: `Bearer ${agentToken}` });
    expect(page.status).toBe(403);
    expect(page.body).toContain('forbidden Origin');
  });

  it('is refused again once the forward is gone', async () => {
    const engine = runner.running.engine;
    const before = engine.forwardedHost;
    engine.forwardedHost = () => null;
    try {
      const refused = await roomInfo({ Host: FORWARDED, Authorization: `Bearer ${agentToken}` });
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('forbidden Host header');
    } finally {
      engine.forwardedHost = before;
    }
  });
});
