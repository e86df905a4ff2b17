import { isMethodName } from '../common/contract';
import type { Caller } from '../common/dto';
import { isRoomError, RoomError, toPublicError } from '../common/errors';
import { LINE_PROTOCOL } from '../common/node-stream';
import { RUNNER_VERSION } from '../common/version';
import type { DoorEngine } from '../engine/index';

/**
 * The room's contract over a byte stream, one JSON object per line: what a room node on another machine speaks
 * to the person's room through `ssh host commonroom node --stdio` (docs/hosts.md). The same methods as every
 * other door, called as the node's operator — the stream is the person's own SSH session, so whoever holds it
 * is the person — with the node's committed events pushed after a `subscribe`.
 *
 *   node → room   {"hello":{"protocol":2,"version":"0.1.0","room":"…","pid":123}}          first line
 *   room → node   {"id":1,"method":"shell_open","params":{…}}
 *   node → room   {"id":1,"result":{…}}  or  {"id":1,"error":{"code":"…","message":"…"}}
 *   room → node   {"id":2,"method":"subscribe","params":{}}  then  {"event":{…}} for each event
 *
 * A request may carry `"as":"NAME"`: the call is made as that participant of the node's room (made with read and
 * write on first use), so an agent's shells there run in the host's sandbox with the agent's name on them.
 * A shell's output may come as binary frames between the lines (common/node-stream.ts, server/node-streams.ts).
 */
export { LINE_PROTOCOL };
/** The longest request line taken; a longer one is refused and the connection closed (nothing is half-read). */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

export interface LineStream {
  write(line: string): void;
  /** Writes bytes as they are (a binary frame of a shell's output, whole, between two lines). */
  writeBytes(bytes: Buffer): void;
  onLine(listener: (line: string) => void): void;
  /** Closes the stream (the other side sees its end). */
  end(): void;
}

/** Splits bytes into lines (a line longer than the limit calls `tooLong` once and drops the rest). */
export function lineSplitter(onLine: (line: string) => void, tooLong: () => void): (chunk: Buffer) => void {
  let pending: Buffer[] = [];
  let size = 0;
  let refused = false;
  return (chunk) => {
    if (refused) return;
    let start = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, i));
      const line = Buffer.concat(pending).toString('utf8');
      pending = [];
      size = 0;
      start = i + 1;
      if (line.trim() !== '') onLine(line);
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      size += chunk.length - start;
      if (size > MAX_LINE_BYTES) {
        refused = true;
        tooLong();
      }
    }
  };
}

/** The caller a request names: the node's operator, or a participant of its room made on first use. */
async function callerFor(engine: DoorEngine, operator: Caller, as: unknown): Promise<Caller> {
  if (as === undefined || as === null) return operator;
  if (typeof as !== 'string') throw new RoomError('INVALID_INPUT', '"as" is a participant\'s name');
  try {
    return engine.participantAs(operator, as);
  } catch (error) {
    if (!isRoomError(error) || error.code !== 'NOT_FOUND') throw error;
    await engine.call(operator, 'participant_add', { name: as, capabilities: ['read', 'write'] });
    return engine.participantAs(operator, as);
  }
}

/**
 * Methods only a node's line door answers (not the contract's: no other door has them), e.g. `stage_place`
 * (server/node-stages.ts). Called as the request's caller, like a contract method.
 */
export type LineExtras = Record<string, (caller: Caller, params: unknown, connection: LineConnection) => Promise<unknown>>;

/**
 * The connection a request came on, for an extra that pushes lines of its own (a shell's output stream:
 * server/node-streams.ts) and lets go of what it holds when the connection ends.
 */
export interface LineConnection {
  send(value: unknown): void;
  /** Sends a binary frame (common/node-stream.ts) between the lines, whole and in order with them. */
  sendBytes(frame: Buffer): void;
  onEnd(listener: () => void): void;
}

/** Serves one connection until it ends; returns the function that stops it (unsubscribes). */
export function serveLines(engine: DoorEngine, stream: LineStream, extras: LineExtras = {}): () => void {
  const operator = engine.operator();
  let unsubscribe: (() => void) | null = null;
  const send = (value: unknown) => stream.write(`${JSON.stringify(value)}\n`);
  const endListeners: (() => void)[] = [];
  const connection: LineConnection = { send, sendBytes: (frame) => stream.writeBytes(frame), onEnd: (listener) => endListeners.push(listener) };
  send({ hello: { protocol: LINE_PROTOCOL, version: RUNNER_VERSION, room: engine.room.id, pid: process.pid } });

  stream.onLine((line) => {
    let request: { id?: unknown; method?: unknown; params?: unknown; as?: unknown };
    try {
      request = JSON.parse(line) as typeof request;
    } catch {
      send({ id: null, error: { code: 'INVALID_INPUT', message: 'a request is one JSON object per line' } });
      return;
    }
    const id = typeof request.id === 'number' || typeof request.id === 'string' ? request.id : null;
    const method = typeof request.method === 'string' ? request.method : '';
    if (method === 'subscribe') {
      unsubscribe ??= engine.bus.subscribe((event) => send({ event }));
      send({ id, result: { subscribed: true } });
      return;
    }
    const extra = Object.hasOwn(extras, method) ? extras[method] : undefined;
    if (extra) {
      // a request without an id is a notice (a stream's acknowledgement): no answer, unless it failed
      const quiet = request.id === undefined;
      callerFor(engine, operator, request.as).then((caller) => extra(caller, request.params ?? {}, connection)).then(
        (result) => quiet || send({ id, result }),
        (error: unknown) => send({ id, error: toPublicError(error) }),
      );
      return;
    }
    if (!isMethodName(method)) {
      send({ id, error: { code: 'NOT_FOUND', message: `unknown method ${JSON.stringify(method)}` } });
      return;
    }
    callerFor(engine, operator, request.as).then((caller) => engine.call(caller, method, request.params ?? {})).then(
      (result) => send({ id, result }),
      (error: unknown) => {
        const pub = toPublicError(error);
        if (pub.code === 'INTERNAL') console.error(`[node] ${method} failed:`, error);
        send({ id, error: pub });
      },
    );
  });
  return () => {
    unsubscribe?.();
    unsubscribe = null;
    for (const listener of endListeners.splice(0)) listener();
  };
}
