import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { resolvePaths, type Paths } from '../engine/index';
import { placesFor, runNode } from '../server/room-node';
import { parseArgs, stringFlag, UsageError } from './args';

export const NODE_USAGE = `usage: commonroom node --stdio [--for KEY]
       commonroom node --stop [--for KEY]

Runs this machine as a room node for a room on another machine, which starts it over SSH
("ssh HOST commonroom node --stdio"): the room's contract, one JSON object per line, on standard
input and output. The node itself is a process of its own that outlives the connection (its shells and
stages keep running when the SSH connection drops or the other machine sleeps); --stdio connects to it,
starting it when none runs. It keeps its own small room (its journal) in the data folder.
  --for KEY   which room it serves (letters, digits, "-" and "_"; default "default"): one node per room
  --stop      end the node: its shells and stages end with it`;

const KEY = /^[A-Za-z0-9_-]{1,64}$/;
function connectOnce(socket: string): Promise<net.Socket | null> {
  return new Promise((resolve) => {
    const s = net.connect(socket);
    s.once('connect', () => resolve(s));
    s.once('error', () => resolve(null));
  });
}

/** Connects to the node, starting it (a process of its own session, so a dropped SSH connection leaves it) when none runs. */
async function connectOrStart(key: string, paths: Paths): Promise<net.Socket> {
  const places = placesFor(key, paths);
  const first = await connectOnce(places.socket);
  if (first) return first;
  fs.mkdirSync(path.dirname(places.log), { recursive: true, mode: 0o700 });
  const log = fs.openSync(places.log, 'a', 0o600);
  const script = process.argv[1] as string;
  const child = spawn(process.execPath, [script, 'node', '--daemon', '--for', key], { detached: true, stdio: ['ignore', log, log], env: process.env });
  child.unref();
  fs.closeSync(log);
  const deadline = Date.now() + 15_000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const s = await connectOnce(places.socket);
    if (s) return s;
    if (Date.now() > deadline) throw new UsageError(`the node did not start: see ${places.log}`);
  }
}

/** `commonroom node`: the relay between SSH's standard input/output and the node (started when needed). */
export async function node(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { stdio: 'boolean', daemon: 'boolean', stop: 'boolean', for: 'string', help: 'boolean' });
  if (args.flags.help) {
    console.log(NODE_USAGE);
    return 0;
  }
  const key = stringFlag(args, 'for') ?? 'default';
  if (!KEY.test(key)) throw new UsageError(`--for ${JSON.stringify(key)}: use letters, digits, "-" and "_" (at most 64)`);
  const paths = resolvePaths();
  if (args.flags.daemon) return runNode(key, paths);
  if (args.flags.stop) {
    const socket = await connectOnce(placesFor(key, paths).socket);
    if (!socket) {
      console.log(`no node runs for ${key}`);
      return 0;
    }
    // the node's pid is in its hello line: read it and signal it
    const hello = await new Promise<string>((resolve) => {
      const s = socket;
      let text = '';
      s.on('data', (b: Buffer) => {
        text += b.toString();
        if (text.includes('\n')) {
          s.destroy();
          resolve(text.split('\n')[0] as string);
        }
      });
      s.on('error', () => resolve(''));
    });
    const pid = (JSON.parse(hello || '{}') as { hello?: { pid?: number } }).hello?.pid;
    if (typeof pid === 'number') process.kill(pid, 'SIGTERM');
    console.log(`stopped the node for ${key}${pid ? ` (pid ${pid})` : ''}`);
    return 0;
  }
  if (!args.flags.stdio) throw new UsageError(`give --stdio (run by the room over SSH) or --stop\n${NODE_USAGE}`);
  const socket = await connectOrStart(key, paths);
  return new Promise<number>((resolve) => {
    process.stdin.pipe(socket);
    socket.pipe(process.stdout);
    // the room went away (SSH dropped): this relay ends, the node goes on
    process.stdin.on('end', () => socket.end());
    socket.on('close', () => resolve(0));
    socket.on('error', () => resolve(1));
  });
}
