// A live viewer of a shell through the app's UI socket (/ui/socket, the operator's bearer: the way `ce shell
// attach` signs in), acknowledging every frame as soon as it has checked it, as the app's terminal does once a
// frame is drawn. It counts what arrives and checks that nothing was lost: every frame starts where the last
// one ended, none is marked truncated, and the command's output is exactly the bytes it wrote.
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';

const Y = 0x79;
const ALL_Y = Buffer.alloc(1024 * 1024, Y);

/**
 * One `shell.data` frame from either wire format: a JSON text message with base64 `data`, or a binary message
 * (a 4-byte big-endian length, that many bytes of JSON header, then the raw bytes).
 */
export function decodeFrame(data, isBinary) {
  if (!isBinary) {
    const message = JSON.parse(data.toString());
    return message.t === 'shell.data' ? { ...message, bytes: Buffer.from(message.data, 'base64') } : message;
  }
  const headerLength = data.readUInt32BE(0);
  const header = JSON.parse(data.toString('utf8', 4, 4 + headerLength));
  return { ...header, bytes: data.subarray(4 + headerLength) };
}

/** How many leading bytes of `bytes` are 'y' (memcmp against a buffer of 'y' first: the common case is all). */
function leadingYs(bytes) {
  for (let at = 0; at < bytes.length; at += ALL_Y.length) {
    const part = bytes.subarray(at, at + ALL_Y.length);
    if (part.equals(ALL_Y.subarray(0, part.length))) continue;
    let i = 0;
    while (part[i] === Y) i++;
    return at + i;
  }
  return bytes.length;
}

/**
 * A UI socket as a page opens it (the operator's bearer, no Origin: the CLI's way in), resolved once the door's
 * hello arrived. `onMessage(data, isBinary, at)` gets every message after the hello, from the first one on.
 */
export function openUiSocket(roomUrl, token, onMessage) {
  const url = new URL('/ui/socket', roomUrl);
  url.protocol = 'ws:';
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false });
  return new Promise((resolve, reject) => {
    let hello = false;
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`the UI socket was refused: HTTP ${res.statusCode}`)));
    ws.on('message', (data, isBinary) => {
      if (hello) return onMessage(data, isBinary, performance.now());
      hello = true;
      resolve(ws);
    });
  });
}

export class UiViewer {
  static async open(roomUrl, token) {
    let viewer;
    // a message may follow the hello in the same read, before the promise below resolves: kept until then
    const early = [];
    const ws = await openUiSocket(roomUrl, token, (data, isBinary) => (viewer ? viewer.receive(decodeFrame(data, isBinary)) : early.push(decodeFrame(data, isBinary))));
    viewer = new UiViewer(ws);
    for (const message of early) viewer.receive(message);
    return viewer;
  }

  constructor(ws) {
    this.ws = ws;
    this.shellId = undefined;
    /** Cursor just after the last byte received. */
    this.next = 0;
    this.received = 0;
    /** Bytes that never arrived (a gap between frames, or a frame marked truncated). */
    this.lost = 0;
    this.frames = 0;
    this.truncatedFrames = 0;
    this.round = undefined;
  }

  attach(shellId) {
    this.shellId = shellId;
    this.ws.send(JSON.stringify({ t: 'shell.attach', shellId, from: 0 }));
  }

  receive(message) {
    if (message.t === 'shell.error') this.round?.reject(new Error(`shell.error: ${message.error.message}`));
    if (message.t !== 'shell.data' || message.shellId !== this.shellId) return;
    if (message.cursor > this.next) this.lost += message.cursor - this.next;
    if (message.truncated) this.truncatedFrames++;
    this.next = message.cursor + message.bytes.length;
    this.received += message.bytes.length;
    this.frames++;
    this.round?.take(message.bytes);
    this.ws.send(JSON.stringify({ t: 'shell.ack', shellId: this.shellId, bytes: message.bytes.length }));
  }

  /**
   * Times one command whose output is `bytes` × 'y' then the marker BENCHEND: from `start()` (which sends it)
   * until the marker arrived; then waits for the next prompt (not timed). The shell's echo of the command line
   * comes first and is skipped; every byte between it and the marker must be a 'y'.
   */
  async watch(bytes, start) {
    let phase = 'echo';
    let ys = 0;
    let other = 0;
    let tail = '';
    let tailSeen = 0;
    let markerAt = 0;
    const t = performance.now();
    const lostBefore = this.lost;
    const truncatedBefore = this.truncatedFrames;
    const receivedBefore = this.received;
    await new Promise((resolve, reject) => {
      this.round = {
        reject,
        take: (chunk) => {
          let rest = chunk;
          if (phase === 'echo') {
            const nl = rest.indexOf(0x0a);
            if (nl < 0) return;
            rest = rest.subarray(nl + 1);
            phase = 'body';
          }
          if (phase === 'body') {
            const n = leadingYs(rest);
            ys += n;
            if (n === rest.length) return;
            rest = rest.subarray(n);
            phase = 'tail';
          }
          if (phase === 'tail') {
            tailSeen += rest.length;
            tail = (tail + rest.toString('latin1')).slice(-256);
            const at = tail.indexOf('BENCHEND');
            if (at < 0) return;
            other = tailSeen - tail.length + at; // whatever came between the last 'y' and the marker
            markerAt = performance.now();
            phase = 'prompt';
            tail = tail.slice(at);
          } else {
            tail = (tail + rest.toString('latin1')).slice(-256);
          }
          if (phase === 'prompt' && /\r?\n\$ $/.test(tail)) resolve();
        },
      };
      start().catch(reject);
    });
    this.round = undefined;
    return { ms: markerAt - t, ys, other, missing: bytes - ys, lost: this.lost - lostBefore, truncatedFrames: this.truncatedFrames - truncatedBefore, received: this.received - receivedBefore };
  }

  close() {
    this.ws.close();
  }
}
