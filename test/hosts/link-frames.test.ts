import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINE_PROTOCOL } from '../../src-main/common/node-stream';
import { encodeOutputFrame, MAX_FRAME_DATA, type OutputFrame } from '../../src-main/engine/hosts/stream-frames';
import { LinkReader } from '../../src-main/engine/hosts/link-reader';
import { NodeLink } from '../../src-main/engine/hosts/node-link';

/**
 * A shell's output from a room node comes as binary frames between the JSON lines (protocol 2, issue 42's
 * stream): read whole however the bytes are cut; a frame that is malformed or too large ends the connection
 * with what was wrong (never a crash, nothing read after it); and a node still speaking protocol 1 is refused
 * with the update to make on the host. The peers here are fake nodes run as `ssh` (a script first on PATH), so
 * the room's link is the real one, reading a real child's standard output.
 */

function reader() {
  const got: { lines: string[]; frames: OutputFrame[]; failed: string[] } = { lines: [], frames: [], failed: [] };
  const r = new LinkReader(
    (line) => {
      got.lines.push(line);
      if (line.includes('hello')) r.framesAllowed = true;
    },
    (frame) => got.frames.push({ ...frame, data: Buffer.from(frame.data) }),
    (why) => got.failed.push(why),
  );
  return { r, got };
}

describe('output frames between the lines', () => {
  it('reads lines and frames whole, in order, however the bytes are cut', () => {
    const data = Buffer.from('y'.repeat(70_000) + '\n\u00e9\x00end');
    const stream = Buffer.concat([
      Buffer.from('profile noise\n{"hello":{"protocol":2}}\n'),
      encodeOutputFrame('sh-1', 5, data, false),
      Buffer.from('{"id":1,"result":{}}\n'),
      encodeOutputFrame('sh-2', 2 ** 40, Buffer.from('after'), true),
      encodeOutputFrame('sh-1', 5 + data.length, Buffer.alloc(0), false),
    ]);
    for (const cut of [1, 7, 4096, 65_536, stream.length]) {
      const { r, got } = reader();
      for (let i = 0; i < stream.length; i += cut) r.push(stream.subarray(i, i + cut));
      expect(got.failed).toEqual([]);
      expect(got.lines).toEqual(['profile noise', '{"hello":{"protocol":2}}', '{"id":1,"result":{}}']);
      expect(got.frames.map((f) => [f.shellId, f.offset, f.gap, f.data.length])).toEqual([
        ['sh-1', 5, false, data.length],
        ['sh-2', 2 ** 40, true, 5],
        ['sh-1', 5 + data.length, false, 0],
      ]);
      expect(got.frames[0]?.data.equals(data)).toBe(true);
    }
  });

  it('takes no frame before the hello: a NUL there is a line that is not the protocol', () => {
    const { r, got } = reader();
    r.push(Buffer.concat([Buffer.from('\x00\x01\x00\x00\x00\x09 noise\n'), Buffer.from('{"hello":{"protocol":2}}\n')]));
    expect(got.failed).toEqual([]);
    expect(got.frames).toEqual([]);
    expect(got.lines).toHaveLength(2);
  });

  it('a frame of an unknown kind, too long, or with a bad shell id ends the reading with the reason, once', () => {
    const hello = Buffer.from('{"hello":{"protocol":2}}\n');
    const good = encodeOutputFrame('sh-1', 0, Buffer.from('ok'), false);
    const unknownKind = Buffer.from(good);
    unknownKind[1] = 9;
    const tooLong = Buffer.from([0, 1, 0xff, 0xff, 0xff, 0xff]);
    const noId = Buffer.from(good);
    noId[6 + 6] = 0;
    for (const [bad, reason] of [
      [unknownKind, /unknown frame kind 9/],
      [tooLong, /a frame of 4294967295 bytes/],
      [noId, /shell id of 0 bytes/],
    ] as const) {
      const { r, got } = reader();
      r.push(Buffer.concat([hello, good, bad, good, Buffer.from('{"id":2}\n')]));
      expect(got.frames).toHaveLength(1);
      expect(got.failed).toHaveLength(1);
      expect(got.failed[0]).toMatch(reason);
      r.push(good);
      expect(got.frames).toHaveLength(1);
      expect(got.lines).toHaveLength(1);
    }
  });

  it('a node never frames more than the protocol allows', () => {
    expect(() => encodeOutputFrame('sh-1', 0, Buffer.alloc(MAX_FRAME_DATA + 1), false)).toThrow(RangeError);
    expect(() => encodeOutputFrame('x'.repeat(200), 0, Buffer.alloc(1), false)).toThrow(RangeError);
  });
});

describe('the link to a fake node run as ssh', () => {
  let dir: string;
  const savedPath = process.env.PATH;

  /** Puts a fake `ssh` first on PATH: a Node script that plays the node's side with `body`. */
  function fakeSsh(body: string): void {
    const file = path.join(dir, 'bin', 'ssh');
    fs.writeFileSync(
      file,
      `#!${process.execPath}\nconst out = (s) => process.stdout.write(s);\nlet buffered = '';\nprocess.stdin.on('data', (b) => {\n  buffered += b;\n  for (let i = buffered.indexOf('\\n'); i !== -1; i = buffered.indexOf('\\n')) {\n    const req = JSON.parse(buffered.slice(0, i));\n    buffered = buffered.slice(i + 1);\n    onRequest(req);\n  }\n});\nfunction onRequest(req) {\n  if (req.method === 'node_socket') return out(JSON.stringify({ id: req.id, error: { code: 'NOT_FOUND', message: 'no such method' } }) + '\\n');\n${body}\n}\n`,
      { mode: 0o755 },
    );
  }

  function link(): NodeLink {
    return new NodeLink({ alias: 'fakebox', config: { path: path.join(dir, 'none'), explicit: false }, controlDir: path.join(dir, 'control') }, 'k1', () => new Date().toISOString());
  }

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-link-frames-'));
    fs.mkdirSync(path.join(dir, 'bin'));
    process.env.PATH = `${path.join(dir, 'bin')}${path.delimiter}${savedPath}`;
  });
  afterAll(() => {
    process.env.PATH = savedPath;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a node of protocol 1 is refused with the update to make on the host, not read', async () => {
    fakeSsh(`  out(JSON.stringify({ id: req.id, result: { shells: [] } }) + '\\n');`);
    // the hello is written at the start (the script's top level runs before any request)
    fs.appendFileSync(path.join(dir, 'bin', 'ssh'), `out(JSON.stringify({ hello: { protocol: 1, version: '0.0.9', room: 'r', pid: 1 } }) + '\\n');\n`);
    const l = link();
    const call = l.call('shell_list', {});
    await expect(call).rejects.toThrow(/host fakebox runs an older commonroom \(0\.0\.9, protocol 1; this room needs 2\): update it there with "npm i -g commonroom"/);
    expect(l.state.state).toBe('unreachable');
    expect(l.state.error).toMatch(/npm i -g commonroom/);
    l.close();
  });

  it('a malformed frame ends the connection with what was wrong; the stream is dropped, to be started again', async () => {
    // a frame's head of an unknown kind after a good frame
    fakeSsh(`  if (req.method !== 'shell_stream') return;
  out(JSON.stringify({ id: req.id, result: { start: 0, end: 0, frames: req.params.frames } }) + '\\n');
  const id = Buffer.from(req.params.shellId);
  const good = Buffer.alloc(13 + id.length + 2);
  good[0] = 0; good[1] = 1; good.writeUInt32BE(7 + id.length + 2, 2); good.writeUIntBE(0, 6, 6); good[12] = id.length;
  id.copy(good, 13); good.write('hi', 13 + id.length);
  out(Buffer.concat([good, Buffer.from([0, 7, 0, 0, 0, 9])]));`);
    fs.appendFileSync(path.join(dir, 'bin', 'ssh'), `out(JSON.stringify({ hello: { protocol: ${LINE_PROTOCOL}, version: '0.1.0', room: 'r', pid: 1 } }) + '\\n');\n`);
    const l = link();
    const seen: string[] = [];
    let dropped!: () => void;
    const gone = new Promise<void>((resolve) => (dropped = resolve));
    const answer = await l.stream('sh-abc', 0, { data: (offset, bytes) => seen.push(`${offset}:${bytes.toString()}`), exit: () => {}, dropped: () => dropped() });
    expect(answer).toMatchObject({ start: 0, end: 0, frames: 'binary' });
    await gone;
    expect(seen).toEqual(['0:hi']);
    expect(l.state.state).toBe('unreachable');
    expect(l.state.error).toMatch(/host fakebox's node sent what this room cannot read \(unknown frame kind 7\): the connection was closed/);
    l.close();
  });

  it("a host whose master cannot forward the node's socket keeps the relay, and is not asked again", async () => {
    const calls = path.join(dir, 'ssh-calls');
    fs.writeFileSync(
      path.join(dir, 'bin', 'ssh'),
      `#!${process.execPath}
const control = process.argv.includes('-O');
require('node:fs').appendFileSync(${JSON.stringify(calls)}, (control ? 'control' : 'relay') + '\\n');
if (control) process.exit(255);
const out = (s) => process.stdout.write(s);
out(JSON.stringify({ hello: { protocol: ${LINE_PROTOCOL}, version: '0.1.0', room: 'r', pid: 1 } }) + '\\n');
let buffered = '';
process.stdin.on('data', (b) => {
  buffered += b;
  for (let i = buffered.indexOf('\\n'); i !== -1; i = buffered.indexOf('\\n')) {
    const req = JSON.parse(buffered.slice(0, i));
    buffered = buffered.slice(i + 1);
    out(JSON.stringify({ id: req.id, result: req.method === 'node_socket' ? { socket: '/run/nowhere/node.sock' } : { shells: [] } }) + '\\n');
  }
});
`,
      { mode: 0o755 },
    );
    const l = link();
    expect(await l.call('shell_list', {})).toEqual({ shells: [] });
    expect(await l.call('shell_list', {})).toEqual({ shells: [] });
    expect(l.state.state).toBe('connected');
    // the relay (which tells where the node's socket is), the master asked for the forward (cancel, forward) and
    // refusing it, the relay again: kept from then on
    expect(fs.readFileSync(calls, 'utf8').trim().split('\n')).toEqual(['relay', 'control', 'control', 'relay']);
    l.close();
  });
});
