#!/usr/bin/env node
// The floor of the `shell-stream` viewer row: the least a live viewer in another process costs. A shell in
// node-pty (as raw node-pty reads it) whose output is relayed over a loopback WebSocket in the room's binary
// frame format (4-byte length, JSON header, the bytes), batched as the room batches (a frame goes when 256 KiB are
// pending, else 5 ms after its first byte), with the same flow control as the room (the PTY paused above 2 MiB
// unacknowledged, resumed at 1.5 MiB).
// No ring, no engine, no auth. It speaks enough of /ui/socket that bench/lib/ui-viewer.js watches it as it
// watches the room: a hello, then `shell.attach` (starts the shell), `shell.ack`, and `type` (keys for the shell,
// which the room takes through shell_io instead). Prints one JSON line {"port":N} once it listens.
import http from 'node:http';
import { Buffer } from 'node:buffer';
import { clearTimeout, setTimeout } from 'node:timers';
import * as pty from 'node-pty';
import { WebSocketServer } from 'ws';

const FRAME_BYTES = 256 * 1024;
const FRAME_MS = 5;
const HIGH = 2 * 1024 * 1024;
const LOW = 1536 * 1024;
const SHELL_ENV = { PS1: '$ ', TERM: 'xterm-256color', PATH: process.env.PATH ?? '/usr/bin:/bin' };

const server = http.createServer((_req, res) => res.writeHead(404).end());
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
