/**
 * The binary frames of a room node's shell output (common/node-stream.ts has the stream's window and the line
 * protocol's version): written by the node (server/node-streams.ts), read by the room (engine/hosts/link-reader.ts).
 * Node's Buffer, so in the engine and not in common/, which the browser's code shares; the node's door reaches it
 * through the engine's face.
 */
/**
 * A frame of a shell's output, between two lines of the node's JSON stream (after its hello):
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
