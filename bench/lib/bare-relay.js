#!/usr/bin/env node
// The floor of the `shell-stream` viewer row: the least a live viewer in another process costs. A shell in
// node-pty (as raw node-pty reads it) whose output is relayed over a loopback WebSocket in the room's binary
// frame format (4-byte length, JSON header, the bytes), batched as the room batches (a frame goes when 256 KiB are
// pending, else 5 ms after its first byte), with the same flow control as the room (the PTY paused above 2 MiB
// unacknowledged, resumed at 1.5 MiB).
// No ring, no engine, no auth. It speaks enough of /ui/socket that bench/lib/ui-viewer.js watches it as it
// watches the room: a hello, then `shell.attach` (starts the shell), `shell.ack`, and `type` (keys for the shell,
// which the room takes through shell_io instead). It also serves the floor of the `ui` terminal row at `/`: a
// page with nothing but xterm.js (made as the app makes it, in the box the app gives it) on that socket, each
// frame written to the terminal and acknowledged once parsed; `globalThis.floor.type(text)` types, and
// `floor.text(n)` reads the last n lines. Prints one JSON line {"port":N} once it listens.
import http from 'node:http';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Buffer } from 'node:buffer';
import { clearTimeout, setTimeout } from 'node:timers';
import * as pty from 'node-pty';
import { WebSocketServer } from 'ws';

const FRAME_BYTES = 256 * 1024;
const FRAME_MS = 5;
const HIGH = 2 * 1024 * 1024;
const LOW = 1536 * 1024;
const SHELL_ENV = { PS1: '$ ', TERM: 'xterm-256color', PATH: process.env.PATH ?? '/usr/bin:/bin' };

const resolve = createRequire(import.meta.url).resolve;
const FILES = {
  '/xterm.js': ['text/javascript', resolve('@xterm/xterm/lib/xterm.js')],
  '/xterm.css': ['text/css', resolve('@xterm/xterm/css/xterm.css')],
  '/unicode11.js': ['text/javascript', resolve('@xterm/addon-unicode11/lib/addon-unicode11.js')],
};
/* the page's script runs in the browser: a terminal as the app makes one (DOM renderer, 10,000 lines of scrollback, its font and unicode widths) */
const PAGE = `<!doctype html><meta charset="utf-8"><link rel="stylesheet" href="/xterm.css">
<script src="/xterm.js"></script><script src="/unicode11.js"></script>
<div id="t" style="position:absolute;left:440px;top:57px;width:830px;height:740px"></div>
<script>
const term = new Terminal({ allowProposedApi: true, scrollback: 10000, fontFamily: "'DejaVu Sans Mono', 'Liberation Mono', monospace", fontSize: 13, cursorBlink: true });
term.loadAddon(new Unicode11Addon.Unicode11Addon());
term.unicode.activeVersion = '11';
term.open(document.getElementById('t'));
const ws = new WebSocket('ws://' + location.host + '/ui/socket');
ws.binaryType = 'arraybuffer';
ws.onopen = () => ws.send(JSON.stringify({ t: 'shell.attach', shellId: 'floor' }));
ws.onmessage = (event) => {
  if (typeof event.data === 'string') return;
  const view = new DataView(event.data);
  const bytes = new Uint8Array(event.data, 4 + view.getUint32(0));
  term.write(bytes, () => ws.send(JSON.stringify({ t: 'shell.ack', shellId: 'floor', bytes: bytes.length })));
};
globalThis.floor = {
  type: (text) => ws.send(JSON.stringify({ t: 'type', text })),
  text: (n) => { const b = term.buffer.active; const lines = []; for (let y = Math.max(0, b.length - n); y < b.length; y++) lines.push(b.getLine(y).translateToString(true)); return lines.join('\\n'); },
};
</script>`;
const server = http.createServer((req, res) => {
  if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  const file = FILES[req.url ?? ''];
  if (!file) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': file[0] }).end(fs.readFileSync(file[1]));
});
const sockets = new WebSocketServer({ server, path: '/ui/socket', perMessageDeflate: false, maxPayload: 64 * 1024 });

sockets.on('connection', (ws) => {
  let term;
  let shellId;
  let cursor = 0;
  let unacked = 0;
  let paused = false;
  let pending = [];
  let pendingBytes = 0;
  let timer;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pendingBytes === 0) return;
    const bytes = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    const header = Buffer.from(JSON.stringify({ t: 'shell.data', shellId, cursor }));
    const frame = Buffer.allocUnsafe(4 + header.length + bytes.length);
    frame.writeUInt32BE(header.length, 0);
    header.copy(frame, 4);
    bytes.copy(frame, 4 + header.length);
    ws.send(frame);
    cursor += bytes.length;
  };
  const onData = (bytes) => {
    pending.push(bytes);
    pendingBytes += bytes.length;
    unacked += bytes.length;
    if (pendingBytes >= FRAME_BYTES) flush();
    else timer ??= setTimeout(flush, FRAME_MS);
    if (!paused && unacked >= HIGH) {
      paused = true;
      term.pause();
    }
  };
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (message.t === 'shell.attach' && !term) {
      shellId = message.shellId;
      term = pty.spawn('/bin/sh', [], { cols: 120, rows: 32, env: SHELL_ENV, encoding: null });
      term.onData(onData);
    } else if (message.t === 'shell.ack') {
      unacked -= message.bytes;
      if (paused && unacked <= LOW) {
        paused = false;
        term.resume();
      }
    } else if (message.t === 'type') {
      term?.write(message.text);
    }
  });
  ws.on('close', () => term?.kill());
  ws.send(JSON.stringify({ t: 'hello' }));
});

server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => process.exit(0));
