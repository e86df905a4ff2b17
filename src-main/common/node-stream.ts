/**
 * A room node's shell output stream (server/node-streams.ts, engine/hosts/remote-mirror.ts): at most this many
 * bytes are in flight unacknowledged. The room's copy of the shell holds the stream that far before its ring
 * would overwrite what a reader or a live view still reads (the copy's hold margin is HIGH), so the bytes still
 * arriving after a hold fit, and nothing is lost. 1 MiB keeps a loaded machine's round trip through the relay
 * and SSH off the throughput (at 256 KiB the stream waited on its acknowledgements; SSH's own channel window is
 * 2 MiB); the node keeps what is unacknowledged in its ring, holding its PTY for it, so a dropped link resends it.
 */
export const NODE_STREAM_HIGH = 1024 * 1024;
export const NODE_STREAM_LOW = 768 * 1024;

/**
 * The line protocol's version (api/line-door.ts, in the node's hello). 2: a shell's output comes as binary
 * frames (below) to a room that asks for them, instead of JSON lines of base64. A room refuses a node older
 * than this with the update to make on the host; a node still answers an older room in JSON lines.
 */
export const LINE_PROTOCOL = 2;

/**
 * A binary frame of a shell's output, between two lines of the node's JSON stream (after its hello):
 *
 *   0x00  kind (1: output, 2: output after a gap)  length (u32 BE, of what follows)
 *   offset (u48 BE)  id length (u8)  shell id (ASCII)  the output's bytes
 *
 * No JSON line starts with 0x00, so a reader knows a frame by its first byte. Bounded: an id of at most
 * MAX_FRAME_ID bytes and at most MAX_FRAME_DATA bytes of output; anything else ends the connection.
 */
export const FRAME_MARK = 0x00;
export const FRAME_OUTPUT = 1;
export const FRAME_OUTPUT_GAP = 2;
/** Bytes before a frame's body: the mark, the kind, the length. */
export const FRAME_HEAD = 6;
export const MAX_FRAME_ID = 128;
export const MAX_FRAME_DATA = 1024 * 1024;
const BODY_FIXED = 7;

/** A frame of `data` (copied in once) at `offset` of shell `shellId`. */
export function encodeOutputFrame(shellId: string, offset: number, data: Uint8Array, gap: boolean): Buffer {
  const id = Buffer.from(shellId, 'latin1');
  if (id.length > MAX_FRAME_ID || data.length > MAX_FRAME_DATA || !Number.isSafeInteger(offset) || offset < 0) {
    throw new RangeError(`a stream frame holds an id of at most ${MAX_FRAME_ID} bytes and at most ${MAX_FRAME_DATA} bytes of output`);
  }
  const frame = Buffer.allocUnsafe(FRAME_HEAD + BODY_FIXED + id.length + data.length);
  frame[0] = FRAME_MARK;
  frame[1] = gap ? FRAME_OUTPUT_GAP : FRAME_OUTPUT;
  frame.writeUInt32BE(BODY_FIXED + id.length + data.length, 2);
  frame.writeUIntBE(offset, FRAME_HEAD, 6);
  frame[FRAME_HEAD + 6] = id.length;
  id.copy(frame, FRAME_HEAD + BODY_FIXED);
  frame.set(data, FRAME_HEAD + BODY_FIXED + id.length);
  return frame;
}

export interface OutputFrame {
  shellId: string;
  offset: number;
  gap: boolean;
  data: Buffer;
}

/** The body length a frame's head announces, or why the head is not a frame's. */
export function frameLength(head: Buffer): number | string {
  const kind = head[1];
  if (kind !== FRAME_OUTPUT && kind !== FRAME_OUTPUT_GAP) return `unknown frame kind ${kind}`;
  const length = head.readUInt32BE(2);
  if (length < BODY_FIXED || length > BODY_FIXED + MAX_FRAME_ID + MAX_FRAME_DATA) return `a frame of ${length} bytes (at most ${BODY_FIXED + MAX_FRAME_ID + MAX_FRAME_DATA})`;
  return length;
}

/** A frame's body read back (`kind` from its head); a string says why it is not one. */
export function decodeOutputFrame(kind: number, body: Buffer): OutputFrame | string {
  const offset = body.readUIntBE(0, 6);
  const idLength = body[6] as number;
  if (idLength === 0 || idLength > MAX_FRAME_ID || BODY_FIXED + idLength > body.length) return `a frame's shell id of ${idLength} bytes`;
  const shellId = body.toString('latin1', BODY_FIXED, BODY_FIXED + idLength);
  return { shellId, offset, gap: kind === FRAME_OUTPUT_GAP, data: body.subarray(BODY_FIXED + idLength) };
}
