import fs from 'node:fs';

/**
 * How the runner reads a PTY's master on Unix (node-pty's internals, used by pty.ts only): bigger reads per
 * event-loop turn, into a buffer of ours, and the last output kept at the exit.
 */

/** node-pty's UnixTerminal internals read here: the master's descriptor and the stream libuv reads it with. */
type UnixInternals = {
  _fd?: unknown;
  _socket?: {
    readableLength?: number;
    isPaused?: () => boolean;
    read?: () => unknown;
    destroy?: (...args: unknown[]) => unknown;
    _handle?: { useUserBuffer?: (buffer: Uint8Array) => void } | null;
  };
};

/** node-pty's master descriptor and its stream, on Unix; null on Windows or when the internals are not as expected. */
function unixMaster(term: unknown): { fd: number; socket: NonNullable<UnixInternals['_socket']> } | null {
  const { _fd: fd, _socket: socket } = term as UnixInternals;
  if (process.platform === 'win32' || typeof fd !== 'number' || !socket) return null;
  return { fd, socket };
}

/** Most a read-ahead takes in one go (shells ask for at most this much). */
const READ_AHEAD_MAX = 64 * 1024;
/** Most handed over from the descriptor when the stream is destroyed (far above what a PTY's kernel buffers hold). */
const DRAIN_MAX = 1024 * 1024;
/** What one read of a Linux PTY master gives while output waits (the line discipline's 4 KiB buffer, less one). */
const FULL_PTY_READ = 4095;

/** One synchronous read of the master, as `fs.readSync` (throws EAGAIN when nothing waits); injectable for tests. */
export type SyncRead = (fd: number, buffer: Buffer, offset: number, length: number) => number;

const readSyncAt: SyncRead = (fd, buffer, offset, length) => fs.readSync(fd, buffer, offset, length, null);

/**
 * Reads what already waits on the (non-blocking) master into `buffer` from `at`, up to `budget` bytes, and
 * returns how many came — but only after a full read: `last` is how many bytes the read just before gave. A
 * read shorter than the line discipline's buffer emptied what waited, so one more would most often fail with
 * EAGAIN, which costs an exception (a stack captured) every time: with 100 chatty shells that was a third of
 * the room's main thread. The writer's next bytes come with the next loop turn. The same rule holds between
 * the read-ahead's own reads.
 */
export function readAheadAfter(last: number, fd: number, buffer: Buffer, at: number, budget: number, read: SyncRead = readSyncAt): number {
  let filled = 0;
  let previous = last;
  while (previous >= FULL_PTY_READ && filled < budget) {
    let n = 0;
    try {
      n = read(fd, buffer, at + filled, budget - filled);
    } catch {
      break; // EAGAIN: nothing waits; EIO: the other side closed, which libuv's own read reports next
    }
    if (n <= 0) break;
    filled += n;
    previous = n;
  }
  return filled;
}

/**
 * A PTY read gives at most what the line discipline holds (≈ 4 KiB on Linux), and libuv reads a descriptor
 * once per event-loop turn. When the loop is busy (building a large answer), the writer fills the kernel's
 * small buffer and blocks, and afterwards every 4 KiB costs a whole loop turn. Reading on synchronously from the
 * same (non-blocking: node-pty sets O_NONBLOCK on the master) descriptor until it is empty takes what waits in
 * one turn, in order: only this thread reads it, and only while node-pty's stream holds nothing back (not
 * paused, nothing buffered), so no byte can overtake an earlier one. Measured with raw node-pty and a loop
 * busy 10 ms in 20: 3.1 → 5.5 MiB/s. Unix only (Windows' ConPTY is a pipe with its own reader).
 */
export function readAheadOf(term: unknown, isDestroyed: () => boolean): ((chunk: Buffer, maxBytes: number) => Buffer) | null {
  const master = unixMaster(term);
  if (!master) return null;
  const { fd, socket } = master;
  return (chunk, maxBytes) => {
    if (maxBytes <= 0 || isDestroyed() || (socket.readableLength ?? 1) > 0 || socket.isPaused?.() !== false) return chunk;
    const scratch = readBuffer();
    const filled = readAheadAfter(chunk.length, fd, scratch, 0, Math.min(scratch.length, maxBytes));
    if (filled === 0) return chunk;
    const out = Buffer.allocUnsafe(chunk.length + filled);
    chunk.copy(out, 0);
    scratch.copy(out, chunk.length, 0, filled);
    return out;
  };
}

/**
 * node-pty reports an exit only after its stream closed, but when the stream has not hit the end of the
 * output within 200 ms of the exit it destroys the stream, and what was still unread is lost: always while
 * the terminal is paused (a slow viewer's backpressure, so the command's last lines never reach the ring),
 * and now and then on a loaded machine (the kernel hands the last write to the master a moment after the
 * exit). Before the stream is destroyed, this hands over what it holds and what still waits on the
 * descriptor (a read after the other side closed gives the rest, then fails), so `onExit` really comes after
 * the last output. Unix only; a no-op when node-pty's internals are not as expected.
 */
export function drainBeforeDestroy(term: unknown, deliver: (bytes: Buffer) => void): void {
  const master = unixMaster(term);
  const destroySocket = master?.socket.destroy;
  if (!master || typeof destroySocket !== 'function') return;
  const { fd, socket } = master;
  let drained = false;
  socket.destroy = function (this: unknown, ...args: unknown[]) {
    if (!drained) {
      drained = true;
      try {
        // what the stream already read but holds back (paused): read() hands each chunk to the data listeners
        while (socket.read?.() != null);
        // bounded: a program still running (destroyed before its exit) could keep writing as fast as this reads
        const scratch = Buffer.allocUnsafe(READ_AHEAD_MAX);
        for (let total = 0; total < DRAIN_MAX; ) {
          const n = fs.readSync(fd, scratch, 0, scratch.length, null);
          if (n <= 0) break;
          total += n;
          deliver(Buffer.from(scratch.subarray(0, n)));
        }
      } catch {
        // EIO (everything was read), EAGAIN (nothing waits) or EBADF (already closed): nothing more to hand over
      }
    }
    return destroySocket.apply(this, args);
  };
}

/** Symbols net.Socket keeps its `onread` option under (Node internals, found by their descriptions). */
function onreadSymbols(socket: object): { buffer: symbol; callback: symbol } | null {
  const symbols = Object.getOwnPropertySymbols(socket);
  const buffer = symbols.find((s) => s.description === 'kBuffer');
  const callback = symbols.find((s) => s.description === 'kBufferCb');
  return buffer && callback ? { buffer, callback } : null;
}

/** Most the master is read into at once: the one libuv read plus a read-ahead. */
const OWN_BUFFER_BYTES = 2 * READ_AHEAD_MAX;

let sharedReadBuffer: Buffer | undefined;
/**
 * The one buffer every terminal's master is read into (and read ahead into). Shared, because a read and its
 * delivery are one synchronous step on this thread: libuv reads one descriptor and calls back before it reads
 * the next, and what is delivered is a view valid only during the call (the ring copies what it keeps). A
 * buffer per terminal cost each shell its pages once output came fast (up to 128 KiB a shell after a flood).
 */
function readBuffer(): Buffer {
  sharedReadBuffer ??= Buffer.allocUnsafeSlow(OWN_BUFFER_BYTES);
  return sharedReadBuffer;
}

/**
 * Has node-pty's stream read the master into our one read buffer (`readBuffer`, shared by every terminal,
 * reused for every read) instead of a new Buffer per ≤ 4 KiB read pushed through a `Readable` and re-emitted
 * twice (node-pty's 'data', then its `onData`): what net.Socket's `onread` option does (a user buffer on the
 * libuv handle, a callback with the count), set on the socket node-pty made. After each read, up to
 * `readAhead()` bytes more that already wait are read into the same buffer (see `readAheadOf`), and `deliver`
 * gets a view of the lot, valid only during the call (the next read, of any terminal, overwrites it). Pausing
 * the socket stops the handle's reads as before; errors and the end (EIO at exit) take the stream's usual path.
 * Returns false (nothing changed) off Unix or when the internals are not as expected.
 */
export function readOwnBuffer(term: unknown, deliver: (view: Buffer) => void, readAhead: () => number, isDestroyed: () => boolean): boolean {
  const master = unixMaster(term);
  const handle = master?.socket._handle;
  if (!master || typeof handle?.useUserBuffer !== 'function') return false;
  const { fd } = master;
  const socket = master.socket as typeof master.socket & Record<symbol, unknown>;
  const keys = onreadSymbols(socket);
  if (!keys || socket[keys.buffer] !== null) return false;
  const buffer = readBuffer();
  socket[keys.buffer] = buffer;
  socket[keys.callback] = (nread: number) => {
    let filled = Math.min(nread, buffer.length);
    const budget = Math.min(readAhead(), buffer.length - filled);
    if (budget > 0 && !isDestroyed() && socket.isPaused?.() === false) filled += readAheadAfter(filled, fd, buffer, filled, budget);
    deliver(buffer.subarray(0, filled));
  };
  handle.useUserBuffer(buffer);
  return true;
}
