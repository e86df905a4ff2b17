import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serveParsed } from '../../src-main/mcp/eras/requests-2026';
import { SPLICE_MIN_CHARS, TextSplices } from '../../src-main/mcp/splices/text-splices';

// The 2026 door hands the SDK's fetch face a parsed body and writes its Response to node:http. Here the face is
// a stand-in answering as the SDK's per-request transport does (a JSON Response, or an SSE stream when a
// notification comes before the result), behind a real server on 127.0.0.1 and a real fetch client.
type Face = Parameters<typeof serveParsed>[0];
const AUTH = { token: 'verified', clientId: 'agent', scopes: [] };

let server: http.Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function serve(face: Face, body: unknown = { jsonrpc: '2.0', id: 7, method: 'tools/call' }): Promise<string> {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => void serveParsed(face, req, res, body, AUTH));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('serving a parsed 2026 request through the SDK fetch face', () => {
  it('passes the parsed body, the auth and the headers; a JSON answer arrives whole with its length and status', async () => {
    let seen: { parsedBody?: unknown; authInfo?: unknown; header?: string | null; hasBody?: boolean } = {};
    const answer = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'é'.repeat(5000) }] } };
    const url = await serve(async (request, options) => {
      seen = { parsedBody: options.parsedBody, authInfo: options.authInfo, header: request.headers.get('mcp-protocol-version'), hasBody: request.body !== null };
      return Response.json(answer, { status: 200, headers: { 'mcp-session-hint': 'x' } });
    });
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28' }, body: '{"ignored":true}' });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(response.headers.get('transfer-encoding')).toBeNull();
    expect(response.headers.get('mcp-session-hint')).toBe('x');
    expect(JSON.parse(text)).toEqual(answer);
    expect(seen).toEqual({
      parsedBody: { jsonrpc: '2.0', id: 7, method: 'tools/call' },
      // the auth as given, with where this answer's large strings may be held (text-splices.ts)
      authInfo: { ...AUTH, extra: { splices: expect.any(TextSplices) } },
      header: '2026-07-28',
      hasBody: false,
    });
  });

  it('writes the strings a tool held into its JSON answer: the client gets exactly the JSON of the whole answer', async () => {
    const output = `${'y'.repeat(SPLICE_MIN_CHARS)}\r\n"quoted" \\ é 😀 \u001b[0m`;
    const result = { output, more: false };
    const answerOf = (r: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: JSON.stringify(r) }], structuredContent: r } });
    let held = 0;
    const url = await serve(async (_request, options) => {
      const splices = options.authInfo?.extra?.splices as TextSplices;
      const sent = splices.holdIn(result);
      held += splices.size;
      return Response.json(answerOf(sent));
    });
    for (let round = 0; round < 3; round++) {
      // three answers one after another: the byte slabs the first used are reused by the next
      const response = await fetch(url, { method: 'POST', body: '{}' });
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(bytes.equals(Buffer.from(JSON.stringify(answerOf(result))))).toBe(true);
      expect(response.headers.get('content-length')).toBe(String(bytes.length));
    }
    expect(held).toBe(3);
  });

  it('writes held strings into an SSE answer too, event by event', async () => {
    const encoder = new TextEncoder();
    const output = `${'ü'.repeat(SPLICE_MIN_CHARS)}"end"`;
    const url = await serve(async (_request, options) => {
      const splices = options.authInfo?.extra?.splices as TextSplices;
      const held = splices.holdIn({ output });
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode('event: message\ndata: {"method":"notifications/progress"}\n\n'));
          controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify({ id: 7, result: { structuredContent: held, content: [{ type: 'text', text: JSON.stringify(held) }] } })}\n\n`));
          controller.close();
        },
      });
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    });
    const text = await (await fetch(url, { method: 'POST', body: '{}' })).text();
    const events = text.split('\n\n').filter(Boolean);
    expect(events).toHaveLength(2);
    expect(events[1]).toBe(`event: message\ndata: ${JSON.stringify({ id: 7, result: { structuredContent: { output }, content: [{ type: 'text', text: JSON.stringify({ output }) }] } })}`);
  });

  it('a JSON answer whose body comes in several chunks arrives whole, in order, with its length', async () => {
    const encoder = new TextEncoder();
    const answer = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: `${'a'.repeat(70_000)}é${'b'.repeat(70_000)}` }] } };
    const whole = encoder.encode(JSON.stringify(answer));
    const url = await serve(async () => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          // three chunks, one boundary inside the two bytes of "é"
          const cut = whole.indexOf(0xc3) + 1;
          controller.enqueue(whole.slice(0, 1000));
          controller.enqueue(whole.slice(1000, cut));
          controller.enqueue(whole.slice(cut));
          controller.close();
        },
      });
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    });
    const response = await fetch(url, { method: 'POST', body: '{}' });
    const text = await response.text();
    expect(response.headers.get('content-length')).toBe(String(whole.length));
    expect(JSON.parse(text)).toEqual(answer);
  });

  it('streams an SSE answer as it is written: a progress event arrives before the result exists', async () => {
    const encoder = new TextEncoder();
    let finish: (() => void) | undefined;
    const url = await serve(async () => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode('event: message\ndata: {"method":"notifications/progress"}\n\n'));
          finish = () => {
            controller.enqueue(encoder.encode('event: message\ndata: {"id":7,"result":{}}\n\n'));
            controller.close();
          };
        },
      });
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    });
    const response = await fetch(url, { method: 'POST', body: '{}' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('notifications/progress');
    expect(first).not.toContain('result');
    finish!();
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toContain('"result":{}');
  });

  it('aborts the request the SDK holds when the client goes away before the answer', async () => {
    let aborted: Promise<boolean> | undefined;
    const url = await serve(
      (request) =>
        new Promise<Response>((resolve) => {
          aborted = new Promise((done) => request.signal.addEventListener('abort', () => done(true), { once: true }));
          void aborted.then(() => resolve(Response.json({}, { status: 499 })));
        }),
    );
    const client = new AbortController();
    const call = fetch(url, { method: 'POST', body: '{}', signal: client.signal }).catch(() => 'gone');
    await expect.poll(() => aborted !== undefined).toBe(true);
    client.abort();
    expect(await call).toBe('gone');
    expect(await aborted).toBe(true);
  });

  it('answers a face that throws with a JSON-RPC internal error for the same id, and no stack trace', async () => {
    const url = await serve(async () => {
      throw new Error('boom at /secret/path.ts:12');
    });
    const response = await fetch(url, { method: 'POST', body: '{}' });
    const text = await response.text();
    expect(response.status).toBe(500);
    const body = JSON.parse(text) as { id: unknown; error: { code: number; message: string } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32603);
    expect(body.error.message).toMatch(/internal error/);
    expect(text).not.toContain('/secret/path.ts');
  });
});
