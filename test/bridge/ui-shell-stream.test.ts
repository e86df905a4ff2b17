/**
 * The UI door's shell stream reuses a frame's buffer once its transport has written it (a fresh 257 KiB buffer
 * per frame set off V8's full collections in a flood), never while the transport may still hold it, and keeps
 * no buffer for a shell that went quiet.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ServerMessage } from '../../src-main/common/ui-protocol';
import { MAX_FRAME_BYTES, ShellStream } from '../../src-main/bridge/ui-shell-stream';

type Data = Extract<ServerMessage, { t: 'shell.data' }>;

/** A stream whose transport keeps each frame and its `sent`, called as each test decides. */
function stream() {
  const frames: { data: Uint8Array; sent: (() => void) | undefined }[] = [];
  const s = new ShellStream('sh', (m, sent) => m.t === 'shell.data' && frames.push({ data: (m as Data).data, sent }), 5, () => 0, () => undefined, 0);
  let offset = 0;
  /** One full frame of output (sent at once). */
  const flood = () => {
    s.onData(Buffer.alloc(MAX_FRAME_BYTES, 0x61), offset, false);
    offset += MAX_FRAME_BYTES;
    return frames.at(-1) as (typeof frames)[number];
  };
  return { s, frames, flood };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('shell stream frame buffers', () => {
  it('a written frame buffer carries the next frame; one still held never does', () => {
    const { s, flood } = stream();
    const first = flood();
    first.sent?.();
    const second = flood();
    expect(second.data.buffer).toBe(first.data.buffer);
    // the second is not written yet: the third gets a buffer of its own
    const third = flood();
    expect(third.data.buffer).not.toBe(second.data.buffer);
    s.stop();
  });

  it('a transport that says "written" twice does not make one buffer carry two frames', () => {
    const { s, flood } = stream();
    const first = flood();
    first.sent?.();
    first.sent?.();
    const second = flood(); // reuses the first's buffer, and is held
    const third = flood();
    expect(second.data.buffer).toBe(first.data.buffer);
    expect(third.data.buffer).not.toBe(second.data.buffer);
    s.stop();
  });

  it('lets its spare buffers go once no frame went for a while', () => {
    vi.useFakeTimers();
    const { s, flood } = stream();
    const first = flood();
    first.sent?.();
    vi.advanceTimersByTime(1_000); // still busy enough: kept
    const second = flood();
    expect(second.data.buffer).toBe(first.data.buffer);
    second.sent?.();
    vi.advanceTimersByTime(2_500); // quiet: let go
    const third = flood();
    expect(third.data.buffer).not.toBe(first.data.buffer);
    s.stop();
  });
});
