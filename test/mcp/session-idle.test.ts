import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRunner, type TestRunner } from '../helpers/runner';

/**
 * 2025-era sessions expire when idle, measured on the room's clock, which this test moves instead of sleeping:
 * a session nobody uses for the idle time is closed (its id then answers 404), and one with a request still
 * open (a GET stream) is never closed, however long that request stays open, until it ends and the idle time
 * passes again. The expiry runs on its timer and before every new session is counted against the caps; the
 * test triggers it through the latter, so nothing waits on wall-clock time.
 */
const IDLE_MS = 60_000;
let now = Date.now();
let r: TestRunner;

beforeAll(async () => {
  r = await startTestRunner({ clock: () => new Date(now), limits: { legacySessionIdleMs: IDLE_MS } });
});
afterAll(async () => {
  await r.close();
});

const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const auth = () => ({ Authorization: `Bearer ${r.token}` });
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'idle', version: '1' } } };

async function openSession(): Promise<string> {
  const res = await fetch(r.running.mcpUrl, { method: 'POST', headers: { ...json, ...auth() }, body: JSON.stringify(INIT) });
  expect(res.status).toBe(200);
  const sid = res.headers.get('mcp-session-id') ?? '';
  await res.text();
  const sessionHeaders = { ...auth(), 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  await fetch(r.running.mcpUrl, { method: 'POST', headers: { ...json, ...sessionHeaders }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) }).then((x) => x.text());
  return sid;
}

/** A new session is opened (which expires idle ones first) and closed again, so the caps never fill. */
async function sweep(): Promise<void> {
  const sid = await openSession();
  await fetch(r.running.mcpUrl, { method: 'DELETE', headers: { ...auth(), 'mcp-session-id': sid } }).then((x) => x.text());
}

async function toolsList(sid: string): Promise<{ status: number; text: string }> {
  const res = await fetch(r.running.mcpUrl, {
    method: 'POST',
    headers: { ...json, ...auth(), 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
  });
  return { status: res.status, text: await res.text() };
}

describe('idle 2025 sessions, on an injected clock', () => {
  it('an unused session expires after the idle time; one with a request open never does, until it ends', async () => {
    const unused = await openSession();
    const busy = await openSession();
    const stream = new AbortController();
    const get = await fetch(r.running.mcpUrl, {
      method: 'GET',
      headers: { accept: 'text/event-stream', ...auth(), 'mcp-session-id': busy, 'mcp-protocol-version': '2025-11-25' },
      signal: stream.signal,
    });
    expect(get.status).toBe(200);

    // just under the idle time: both stay
    now += IDLE_MS - 1_000;
    await sweep();
    expect((await toolsList(unused)).status).toBe(200);

    // a day later: the unused one is gone, with a message that says what to do; the one with its stream open stays
    now += 24 * 60 * 60 * 1000;
    await sweep();
    const gone = await toolsList(unused);
    expect(gone.status).toBe(404);
    expect(gone.text).toContain('session not found: it ended or expired; initialize a new one');
    expect((await toolsList(busy)).status).toBe(200);

    // its stream ends: from then on it is idle like any other (the runner sees the close asynchronously, so
    // each round moves the clock past the idle time again; a request on the session counts as use)
    stream.abort();
    await expect
      .poll(
        async () => {
          now += IDLE_MS + 1_000;
          await sweep();
          return (await toolsList(busy)).status;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe(404);
  }, 60_000);
});
