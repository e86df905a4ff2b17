import { describe, expect, it } from 'vitest';
import { decodeShellFrame, encodeShellFrame, FRAME_HEADROOM, frameData, readServerMessage, type ShellDataMessage } from '../../src-main/common/ui-shell-frame';

// Shell output on the UI WebSocket: a binary message (header length, ASCII JSON header, raw bytes).
describe('shell output frames', () => {
  it('carry any bytes, the cursor, the shell id and the truncation mark unchanged', () => {
    const every = new Uint8Array(256).map((_, i) => i);
    const cases: ShellDataMessage[] = [
      { t: 'shell.data', shellId: 'sh-000001-abcd', cursor: 0, data: every },
      { t: 'shell.data', shellId: 'sh-1', cursor: Number.MAX_SAFE_INTEGER, data: new Uint8Array(0), truncated: true },
      { t: 'shell.data', shellId: 'büro "☃"\\', cursor: 7, data: new Uint8Array([0x7b, 0x22]) },
    ];
    for (const message of cases) {
      const frame = encodeShellFrame(message);
      // the header is ASCII whatever the shell id holds, so the browser and Node read it the same way
      const length = new DataView(frame.buffer).getUint32(0);
      expect(frame.subarray(4, 4 + length).every((b) => b < 0x7f)).toBe(true);
      expect(decodeShellFrame(frame)).toEqual(message);
    }
  });

  it('frames data gathered behind FRAME_HEADROOM in place (no copy), with the same bytes as a copied frame', () => {
    const bytes = new Uint8Array(1000).map((_, i) => (i * 7) & 0xff);
    const buffer = new Uint8Array(FRAME_HEADROOM + 4096);
    buffer.set(bytes, FRAME_HEADROOM);
    const message: ShellDataMessage = { t: 'shell.data', shellId: 'sh-000042-beef', cursor: 123456, data: frameData(buffer, bytes.length), truncated: true };
    const copied = encodeShellFrame({ ...message, data: bytes });
    const inPlace = encodeShellFrame(message);
    expect(inPlace.buffer).toBe(buffer.buffer);
    expect(inPlace).toEqual(copied);
    expect(decodeShellFrame(inPlace)).toEqual({ ...message, data: bytes });
    // encoded once in place: a second encoding of the same message copies (the front may be in a socket's queue)
    const again = encodeShellFrame(message);
    expect(again.buffer).not.toBe(buffer.buffer);
    expect(again).toEqual(copied);
  });

  it('decodes a frame at an offset inside a larger buffer without copying its bytes', () => {
    const inner = encodeShellFrame({ t: 'shell.data', shellId: 's', cursor: 3, data: new Uint8Array([1, 2, 3]) });
    const outer = new Uint8Array(inner.length + 10);
    outer.set(inner, 5);
    const decoded = decodeShellFrame(outer.subarray(5, 5 + inner.length));
    expect(decoded?.data).toEqual(new Uint8Array([1, 2, 3]));
    expect(decoded?.data.buffer).toBe(outer.buffer);
  });

  it('refuses what is not a well-formed frame (returns null)', () => {
    const header = (json: string, extra: number[] = []) => {
      const bytes = [...json].map((c) => c.charCodeAt(0));
      return new Uint8Array([0, 0, 0, bytes.length, ...bytes, ...extra]);
    };
    expect(decodeShellFrame(new Uint8Array([0, 0, 1]))).toBeNull(); // shorter than the length field
    expect(decodeShellFrame(new Uint8Array([0, 0, 0, 50, 0x7b]))).toBeNull(); // header longer than the frame
    expect(decodeShellFrame(new Uint8Array([0xff, 0xff, 0xff, 0xff]))).toBeNull();
    expect(decodeShellFrame(header('{not json'))).toBeNull();
    expect(decodeShellFrame(header('{"t":"event","shellId":"s","cursor":0}'))).toBeNull();
    expect(decodeShellFrame(header('{"t":"shell.data","shellId":"s","cursor":-1}'))).toBeNull();
    expect(decodeShellFrame(header('{"t":"shell.data","shellId":"s","cursor":1.5}'))).toBeNull();
    expect(decodeShellFrame(header('{"t":"shell.data","cursor":0}'))).toBeNull();
    expect(decodeShellFrame(header('{"t":"shell.data","shellId":"s","cursor":0}', [9]))).toEqual({ t: 'shell.data', shellId: 's', cursor: 0, data: new Uint8Array([9]) });
  });

  it('are what a client reads from a binary message; a text message is JSON, and neither shape is ignored', () => {
    const message: ShellDataMessage = { t: 'shell.data', shellId: 'sh-1', cursor: 3, data: new Uint8Array([1, 2]) };
    expect(readServerMessage(encodeShellFrame(message))).toEqual(message);
    expect(readServerMessage('{"t":"hello","version":1}')).toEqual({ t: 'hello', version: 1 });
    expect(readServerMessage('not json')).toBeNull();
    expect(readServerMessage(new Uint8Array([0, 0, 1]))).toBeNull();
  });
});
