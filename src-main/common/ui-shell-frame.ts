/**
 * Shell output on the UI WebSocket travels as binary messages, not JSON text: base64 inside JSON cost the room
 * an encode, a string copy and a UTF-8 encode per frame, and every viewer a parse and a decode (most of the
 * door's CPU in a flood). Layout of one binary message:
 *
 *   [4 bytes: header length H, big-endian] [H bytes: ASCII JSON {t: 'shell.data', shellId, cursor, truncated?}]
 *   [the raw bytes]
 *
 * Everything else (and everything a client sends) stays JSON text. Over Electron IPC the `shell.data` object
 * itself is sent (structured clone carries the bytes). Pure TypeScript (Uint8Array, DataView): the
 * room process, the renderer and `ce shell attach` share it.
 */
import type { ServerMessage } from './ui-protocol';

export type ShellDataMessage = Extract<ServerMessage, { t: 'shell.data' }>;

/** A header is a shell id (≤ 128 characters), a cursor and a flag: far below this. */
const MAX_HEADER_BYTES = 1024;

/** JSON with every character past ASCII escaped (\uXXXX), so one character is one byte either way. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Bytes kept free in front of a frame's data for its header (`frameData`): the 4-byte length and the largest header. */
export const FRAME_HEADROOM = 4 + MAX_HEADER_BYTES;

/** Views of data with `FRAME_HEADROOM` free bytes in front (from `frameData`): encoded in place, once. */
const inPlace = new WeakSet<Uint8Array>();

/**
 * `length` bytes of data gathered at offset `FRAME_HEADROOM` of `buffer` (whose first bytes are free), as a
 * `shell.data` message's `data`: its encoding writes the header into the free bytes in front and sends that
 * part of the buffer itself, so the data is not copied again. The caller gives the buffer up.
 */
export function frameData(buffer: Uint8Array, length: number): Uint8Array {
  const data = buffer.subarray(FRAME_HEADROOM, FRAME_HEADROOM + length);
  inPlace.add(data);
  return data;
}

/**
 * One `shell.data` message as a binary WebSocket message: the data copied once after a small header, or not at
 * all when it came from `frameData` (the header goes in front of it).
 */
export function encodeShellFrame(message: ShellDataMessage): Uint8Array {
  const head: { t: 'shell.data'; shellId: string; cursor: number; truncated?: true } = { t: 'shell.data', shellId: message.shellId, cursor: message.cursor };
  if (message.truncated) head.truncated = true;
  const header = asciiJson(head);
  const data = message.data;
  const at = data.byteOffset - 4 - header.length;
  const frame =
    inPlace.delete(data) && at >= 0 ? new Uint8Array(data.buffer, at, 4 + header.length + data.length) : new Uint8Array(4 + header.length + data.length);
  new DataView(frame.buffer, frame.byteOffset, 4).setUint32(0, header.length);
  for (let i = 0; i < header.length; i++) frame[4 + i] = header.charCodeAt(i);
  if (frame.buffer !== data.buffer) frame.set(data, 4 + header.length);
  return frame;
}

/**
 * Reads a binary message back; `data` is a view into `frame` (no copy). Returns null for anything that is not a
 * well-formed shell frame (the caller ignores it, as it ignores text that is not JSON).
 */
export function decodeShellFrame(frame: Uint8Array): ShellDataMessage | null {
  if (frame.length < 4) return null;
  const length = new DataView(frame.buffer, frame.byteOffset, 4).getUint32(0);
  if (length > MAX_HEADER_BYTES || 4 + length > frame.length) return null;
  const header = frame.subarray(4, 4 + length);
  if (header.some((b) => b > 0x7e)) return null;
  let head: unknown;
  try {
    head = JSON.parse(String.fromCharCode(...header));
  } catch {
    return null;
  }
  const h = head as Partial<ShellDataMessage> | null;
  if (!h || h.t !== 'shell.data' || typeof h.shellId !== 'string' || typeof h.cursor !== 'number' || !Number.isSafeInteger(h.cursor) || h.cursor < 0) return null;
  const message: ShellDataMessage = { t: 'shell.data', shellId: h.shellId, cursor: h.cursor, data: frame.subarray(4 + length) };
  if (h.truncated === true) message.truncated = true;
  return message;
}

/**
 * One message from the UI door as a client receives it: a text message is JSON, a binary one a shell frame.
 * Null for anything else (a client ignores what it cannot read).
 */
export function readServerMessage(data: string | Uint8Array): ServerMessage | null {
  if (typeof data !== 'string') return decodeShellFrame(data);
  try {
    return JSON.parse(data) as ServerMessage;
  } catch {
    return null;
  }
}
