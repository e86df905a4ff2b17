/**
 * The UI socket as `ce shell attach` opens it: a local program (no Origin) with the operator's bearer token,
 * also where no browser UI is served (the Electron app). Only the operator token passes; a page (which always
 * sends an Origin) still needs the UI cookie, whatever token it carries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ServerMessage } from '../../src-main/common/ui-protocol';
import { startTestRunner, type TestRunner } from '../helpers/runner';

let runner: TestRunner;
let agentToken: string;

function openSocket(headers: Record<string, string>): Promise<{ ws?: WebSocket; first?: ServerMessage; refused?: number; body?: string }> {
  const port = Number(runner.running.baseUrl.port);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ui/socket`, { headers });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ refused: res.statusCode ?? 0, body }));
    });
    ws.once('message', (data) => resolve({ ws, first: JSON.parse(data.toString()) as ServerMessage }));
    ws.once('error', (e) => {
      if (!/Unexpected server response/.test(e.message)) reject(e);
    });
  });
}

beforeAll(async () => {
  runner = await startTestRunner({ browserUi: false }); // as in the app: no browser UI, no UI cookie at all
  const engine = runner.running.engine;
  agentToken = (await engine.call(engine.operator(), 'participant_add', { name: 'agent', capabilities: ['read', 'write'] })).token;
});
afterAll(() => runner.close());

describe('the UI socket with a bearer token', () => {
  it('the operator token opens it (no browser UI needed) and the session works', async () => {
    const opened = await openSocket({ authorization: `Bearer ${runner.token}` });
    expect(opened.first).toMatchObject({ t: 'hello', operator: 'operator' });
    const ws = opened.ws as WebSocket;
    const answer = new Promise<ServerMessage>((resolve) => ws.on('message', (d) => resolve(JSON.parse(d.toString()) as ServerMessage)));
    ws.send(JSON.stringify({ t: 'call', id: 1, method: 'shell_list', input: {} }));
    expect(await answer).toMatchObject({ t: 'result', id: 1, ok: true, value: { shells: [] } });
    ws.close();
  });

  it('an agent token, a wrong token, and a page with a token but no cookie are refused', async () => {
    expect(await openSocket({ authorization: `Bearer ${agentToken}` })).toMatchObject({ refused: 403, body: expect.stringContaining('only the operator token') });
    expect(await openSocket({ authorization: 'Bearer cr_not-a-token' })).toMatchObject({ refused: 401 });
    const host = runner.running.baseUrl.host;
    const page = await openSocket({ authorization: `Bearer ${runner.token}`, origin: `http://${host}` });
    expect(page.refused).toBe(401); // the cookie path: a browser never gets in by token
    expect(await openSocket({})).toMatchObject({ refused: 403 }); // no Origin and no token: not a page, not a program we know
  });
});
