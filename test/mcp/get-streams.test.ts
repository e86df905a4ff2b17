/**
 * A 2025 session has one GET stream of its own. A client that opens a second while the first is open is answered
 * 405 ("no further stream here", which clients take quietly) rather than 409, which the SDK inside Gemini CLI
 * 0.61 reports as an MCP error on every start: after each answer it resumes the answered stream, then opens a
 * new GET. The first stream stays; once it closes, a new one is taken. Raw HTTP, as those clients send it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRunner, type TestRunner } from '../helpers/runner';

let runner: TestRunner;
let headers: Record<string, string>;

beforeAll(async () => {
  runner = await startTestRunner();
  const { engine } = runner.running;
  const { token } = await engine.call(engine.operator(), 'participant_add', { name: 'gem', capabilities: ['read', 'write'] });
  headers = { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
});
afterAll(async () => {
  await runner?.close();
});

const post = (body: unknown, extra: Record<string, string> = {}) => fetch(runner.running.mcpUrl, { method: 'POST', headers: { ...headers, ...extra }, body: JSON.stringify(body) });
const get = (session: string, signal: AbortSignal, extra: Record<string, string> = {}) =>
  fetch(runner.running.mcpUrl, { method: 'GET', headers: { authorization: headers.authorization as string, accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18', ...extra }, signal });

describe("a 2025 session's GET stream", () => {
  it('a second GET while the first is open gets 405 with a JSON reason; the first stays open; after it closes a new one opens', async () => {
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gemini-cli-mcp-client', version: '0.61.0' } } });
    const session = init.headers.get('mcp-session-id') as string;
    expect(session).toBeTruthy();
    await init.text();
    const session2025 = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' };
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session2025)).status).toBe(202);

    const first = new AbortController();
    const stream = await get(session, first.signal);
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();

    for (let i = 0; i < 3; i++) {
      const again = await get(session, new AbortController().signal);
      expect(again.status).toBe(405);
      expect(again.headers.get('allow')).toBe('POST, DELETE');
      expect(((await again.json()) as { error: { message: string } }).error.message).toMatch(/GET stream is already open/);
    }
    // the session and its first stream are untouched: a call still answers, the stream is still open
    const listed = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, session2025);
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('shell_open');
    const read = await Promise.race([reader.read().then((r) => (r.done ? 'ended' : 'data')), new Promise<string>((r) => setTimeout(() => r('open'), 500))]);
    expect(read).not.toBe('ended');

    first.abort();
    await reader.cancel().catch(() => undefined);
    await expect.poll(async () => {
      const next = await get(session, AbortSignal.timeout(2000));
      const status = next.status;
      await next.body?.cancel();
      return status;
    }, { timeout: 10_000 }).toBe(200);
  });
});
