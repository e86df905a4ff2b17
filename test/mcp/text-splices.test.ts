import { EventEmitter } from 'node:events';
import type http from 'node:http';
import type { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../src-main/common/dto';
import { RPC } from '../../src-main/mcp/transport/rpc-errors';
import { SessionSplices } from '../../src-main/mcp/splices/session-splices';
import { SPLICE_MIN_CHARS, TextSplices } from '../../src-main/mcp/splices/text-splices';

// A tool's large strings leave the SDK's serialisation as stand-ins and are written into the answer's bytes
// afterwards. What a client receives must be exactly the bytes JSON.stringify would have made of the whole answer.

/** The answer the SDK makes of a result: the structured content, and the same object as a JSON text block. */
const answerOf = (result: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 3,
  result: { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result },
});

/** What reaches the client when `result` goes through splices: the SDK's JSON of the held answer, spliced. */
function throughSplices(result: Record<string, unknown>, splices = new TextSplices()): { bytes: Buffer; splices: TextSplices; pieces: Buffer[] } {
  const sent = splices.holdIn(result);
  const pieces = splices.splice(Buffer.from(JSON.stringify(answerOf(sent))));
  return { bytes: Buffer.concat(pieces), splices, pieces };
}

/** A long string of what terminals write: control bytes, quotes, backslashes, accents, CJK, emoji, DEL. */
function terminalText(length: number, seed: number): string {
  const alphabet = ['y', ' ', '\r\n', '\t', '\u001b[31m', '\u0000', '\u0007', '\b', '\f', '"', '\\', '/', 'é', '語', '😀', '\u007f', '\u2028', '\u001f'];
  let state = seed;
  let text = '';
  while (text.length < length) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    text += alphabet[state % alphabet.length];
  }
  return text;
}

describe('text splices: large strings written into the answer after the SDK', () => {
  it('the spliced answer is byte for byte the JSON of the whole answer, for every kind of character, at both depths', () => {
    const result = {
      shellId: 'sh_1',
      output: terminalText(SPLICE_MIN_CHARS * 4, 1),
      nested: { logs: [terminalText(SPLICE_MIN_CHARS + 7, 2), 'short'], more: true },
      count: 2,
    };
    const { bytes, splices } = throughSplices(result);
    expect(splices.size).toBe(2);
    expect(bytes.equals(Buffer.from(JSON.stringify(answerOf(result))))).toBe(true);
    // and the client reads back the same strings from both the structured content and the text block
    const parsed = JSON.parse(bytes.toString('utf8')) as ReturnType<typeof answerOf>;
    expect(parsed.result.structuredContent).toEqual(result);
    expect(JSON.parse(parsed.result.content[0]!.text)).toEqual(result);
  });

  it('escapes right wherever the escaped bytes fall among clean runs (the scan skips four bytes at a time)', () => {
    // clean runs of every length between escaped characters, so each lands at every position within a word,
    // next to multi-byte characters (bytes ≥ 0x80, never escaped), and strings of every length modulo 4
    const specials = ['"', '\\', '\n', '\u0000', '\u001f', '\r\n', 'é"', '語\\', '😀\u0001'];
    for (let extra = 0; extra < 8; extra++) {
      let state = 7 + extra;
      let text = '';
      while (text.length < SPLICE_MIN_CHARS + extra) {
        state = (state * 1103515245 + 12345) % 2 ** 31;
        text += 'y'.repeat(state % 41) + (specials[(state >> 8) % specials.length] as string);
      }
      text = text.slice(0, SPLICE_MIN_CHARS + extra);
      if (!(text as unknown as { isWellFormed(): boolean }).isWellFormed()) text = text.slice(0, -1);
      const { bytes, splices } = throughSplices({ output: text, clean: 'a'.repeat(SPLICE_MIN_CHARS + extra) });
      expect(splices.size).toBe(2);
      expect(bytes.equals(Buffer.from(JSON.stringify(answerOf({ output: text, clean: 'a'.repeat(SPLICE_MIN_CHARS + extra) }))))).toBe(true);
    }
  });

  it('a long string of nothing JSON escapes goes out as its UTF-8 bytes, with no copy made to escape it', () => {
    const output = 'y'.repeat(SPLICE_MIN_CHARS * 16);
    const { bytes, pieces } = throughSplices({ output });
    expect(bytes.equals(Buffer.from(JSON.stringify(answerOf({ output }))))).toBe(true);
    // the output appears twice (structured content, text block), both times the same bytes
    const big = pieces.filter((piece) => piece.length >= output.length);
    expect(big).toHaveLength(2);
    expect(big[0]!.buffer).toBe(big[1]!.buffer);
  });

  it('holds only what is worth it: short strings and strings with a lone surrogate go through the SDK as they are', () => {
    const splices = new TextSplices();
    const short = 'x'.repeat(SPLICE_MIN_CHARS - 1);
    const lone = `${'x'.repeat(SPLICE_MIN_CHARS)}\ud800`;
    const sent = splices.holdIn({ short, lone, n: 1, list: [short] });
    expect(sent).toEqual({ short, lone, n: 1, list: [short] });
    expect(splices.size).toBe(0);
    const { bytes } = throughSplices({ short, lone });
    expect(bytes.toString('utf8')).toBe(JSON.stringify(answerOf({ short, lone })));
  });

  it('leaves the result it was given unchanged, and answers stand-ins only in a copy', () => {
    const result = { output: 'z'.repeat(SPLICE_MIN_CHARS), nested: { keep: 'a' } };
    const splices = new TextSplices();
    const sent = splices.holdIn(result);
    expect(result.output).toBe('z'.repeat(SPLICE_MIN_CHARS));
    expect(sent).not.toBe(result);
    expect(sent.nested).toBe(result.nested);
    expect(String(sent.output).length).toBeLessThan(100);
  });

  it('a stand-in that is not one of this answer (another index, another answer, cut short) is left exactly as it is; one repeated is escaped once', () => {
    const splices = new TextSplices();
    const standIn = splices.hold('q'.repeat(SPLICE_MIN_CHARS));
    const other = new TextSplices();
    const othersStandIn = other.hold('r'.repeat(SPLICE_MIN_CHARS));
    // a stand-in ends with its index and a control character (U+0001)
    const withIndex = (text: string, index: number) => `${text.slice(0, -2)}${index}${text.slice(-1)}`;
    const forged = withIndex(standIn, 7);
    const cut = standIn.slice(0, -1);
    const message = { text: [forged, cut, othersStandIn] };
    const bytes = Buffer.from(JSON.stringify(message));
    expect(Buffer.concat(splices.splice(bytes)).equals(bytes)).toBe(true);
    // the same stand-in three times (a forger who knew the tag): three pieces, one escape made
    const thrice = splices.splice(Buffer.from(JSON.stringify([standIn, standIn, standIn])));
    const big = thrice.filter((piece) => piece.length === SPLICE_MIN_CHARS);
    expect(big).toHaveLength(3);
    expect(new Set(big.map((piece) => piece.buffer)).size).toBe(1);
  });

  it('reuses its byte slabs only once an answer is released, never after it was forgotten (a write cut short)', () => {
    const first = { output: terminalText(SPLICE_MIN_CHARS * 2, 3) };
    const second = { output: terminalText(SPLICE_MIN_CHARS * 2, 4) };
    const expectedFirst = Buffer.from(JSON.stringify(answerOf(first)));
    // forgotten: its pieces may still be in a socket's queue, so the next answer must not write over them
    const a = throughSplices(first);
    a.splices.forget();
    const b = throughSplices(second);
    expect(Buffer.concat(a.pieces).equals(expectedFirst)).toBe(true);
    expect(b.bytes.equals(Buffer.from(JSON.stringify(answerOf(second))))).toBe(true);
    // released: the next answer may take the same slabs, and is still exactly right
    b.splices.release();
    const c = throughSplices(first);
    expect(c.bytes.equals(expectedFirst)).toBe(true);
  });
});

describe('a 2025 session writing answers that held strings', () => {
  type Writer = (controller: { enqueue(chunk: Uint8Array): void }, encoder: TextEncoder, message: unknown, eventId?: string) => boolean;
  const encoder = new TextEncoder();
  /** A stand-in for the SDK transport's web half: writes each message as one SSE event, as the SDK does. */
  function fakeTransport() {
    const web = {
      writeSSEEvent: ((controller, enc, message, eventId) => {
        controller.enqueue(enc.encode(`event: message\n${eventId ? `id: ${eventId}\n` : ''}data: ${JSON.stringify(message)}\n\n`));
        return true;
      }) as Writer,
    };
    return { transport: { _webStandardTransport: web } as unknown as NodeStreamableHTTPServerTransport, web };
  }
  const post = (body: unknown) => {
    const req = {} as http.IncomingMessage & { auth?: { extra?: { splices?: TextSplices } } };
    const res = new EventEmitter() as unknown as http.ServerResponse;
    return { req, res, body };
  };
  const caller = { name: 'agent', role: 'agent', capabilities: ['read'] } as unknown as Caller;

  it("splices a tool call's answer in its SSE event; a client's own answer with the same id neither gets splices nor displaces the call's", () => {
    const session = new SessionSplices();
    const { transport, web } = fakeTransport();
    session.attach(transport);
    const call = post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'shell_io' } });
    session.hold(call.req, call.res, caller, call.body);
    const splices = call.req.auth?.extra?.splices;
    expect(splices).toBeInstanceOf(TextSplices);
    // the client answers a request of the room's (an elicitation, say) whose id is also 1
    const reply = post({ jsonrpc: '2.0', id: 1, result: { action: 'accept' } });
    session.hold(reply.req, reply.res, caller, reply.body);
    expect(reply.req.auth).toBeUndefined();

    const output = `${'y'.repeat(SPLICE_MIN_CHARS)}"\n`;
    const held = splices!.holdIn({ output });
    const chunks: Uint8Array[] = [];
    web.writeSSEEvent({ enqueue: (chunk) => void chunks.push(chunk) }, encoder, { ...answerOf(held), id: 1 }, 'ev_1');
    const expected = `event: message\nid: ev_1\ndata: ${JSON.stringify({ ...answerOf({ output }), id: 1 })}\n\n`;
    expect(Buffer.concat(chunks).toString('utf8')).toBe(expected);
    (call.res as unknown as EventEmitter).emit('finish');
  });

  it('a call whose POST stream broke after it held strings is sent, on the resumed stream, an error saying to call again', () => {
    const session = new SessionSplices();
    const { transport, web } = fakeTransport();
    session.attach(transport);
    const call = post({ jsonrpc: '2.0', id: 'c7', method: 'tools/call', params: { name: 'shell_io' } });
    session.hold(call.req, call.res, caller, call.body);
    const splices = call.req.auth!.extra!.splices!;
    const held = splices.holdIn({ output: 'y'.repeat(SPLICE_MIN_CHARS) });
    (call.res as unknown as EventEmitter).emit('close');
    // the client resumes its stream with Last-Event-ID; the SDK sends it the answer there
    const chunks: Uint8Array[] = [];
    web.writeSSEEvent({ enqueue: (chunk) => void chunks.push(chunk) }, encoder, { ...answerOf(held), id: 'c7' }, 'ev_9');
    const event = Buffer.concat(chunks).toString('utf8');
    expect(event).not.toContain('crsplice');
    const sent = JSON.parse(event.split('data: ')[1]!) as { id: string; error: { code: number; message: string } };
    expect(sent).toMatchObject({ id: 'c7', error: { code: RPC.replayDropped, message: expect.stringMatching(/send the same call again/) } });
    // and a call that had held nothing when its stream broke holds nothing later: its answer goes out whole
    const other = post({ jsonrpc: '2.0', id: 'c8', method: 'tools/call', params: { name: 'shell_io' } });
    session.hold(other.req, other.res, caller, other.body);
    (other.res as unknown as EventEmitter).emit('close');
    const late = 'z'.repeat(SPLICE_MIN_CHARS);
    expect(other.req.auth!.extra!.splices!.hold(late)).toBe(late);
  });

  it('a session whose transport could not be reached holds nothing', () => {
    const session = new SessionSplices();
    session.attach({} as NodeStreamableHTTPServerTransport);
    const call = post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'shell_io' } });
    session.hold(call.req, call.res, caller, call.body);
    expect(call.req.auth).toBeUndefined();
  });
});
