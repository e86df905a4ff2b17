import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { lineSplitter, serveLines, type LineStream } from '../api/line-door';
import { RoomError } from '../common/errors';
import { Engine, nodeGraphReads, Room, type Paths } from '../engine/index';
import { nodeStageMethods } from './node-stages';
import { nodeWorktreeMethods } from './node-worktrees';
import { nodeAgentMethods } from './node-agents';
import { nodeStreamMethods } from './node-streams';

/**
 * A room node: this machine serving a room on another machine (docs/hosts.md). The engine over the node's own
 * small room (its journal), and the line door (api/line-door.ts) on a Unix socket in the config folder, which
 * `commonroom node --stdio` relays SSH's standard input and output to (and which the room then reaches straight,
 * through its ControlMaster's forward of the socket: `node_socket` says where it is). The node is a process of its own session:
 * a dropped SSH connection ends the relay, never the node, its shells or its stages.
 */

/** An idle node (no connection, no live shell) ends after this long. */
const IDLE_EXIT_MS = 10 * 60_000;

export interface NodePlaces {
  markdown: string;
  socket: string;
  log: string;
}

/** Where a node keeps its room (the data folder) and its socket (the config folder, hidden from its agents' sandboxes). */
export function placesFor(key: string, paths: Paths): NodePlaces {
  const socket = path.join(paths.configDir, 'node', `${key}.sock`);
  if (Buffer.byteLength(socket) >= 100) {
    throw new RoomError('UNAVAILABLE', `the config folder's path (${paths.configDir}) is too long for the node's socket: set COMMONROOM_CONFIG_DIR to a shorter folder`);
  }
  return { markdown: path.join(paths.dataDir, 'nodes', `${key}.md`), socket, log: path.join(paths.dataDir, 'nodes', `${key}.log`) };
}

function streamOf(socket: net.Socket): LineStream {
  return {
    write: (line) => {
      if (!socket.destroyed) socket.write(line);
    },
    writeBytes: (bytes) => {
      if (!socket.destroyed) socket.write(bytes);
    },
    onLine: (listener) => {
      socket.on('data', lineSplitter(listener, () => socket.destroy()));
    },
    end: () => socket.end(),
  };
}

/** The node itself: the engine over its room, serving each connection on its socket, until stopped or idle. */
export async function runNode(key: string, paths: Paths): Promise<number> {
  const places = placesFor(key, paths);
  fs.mkdirSync(path.dirname(places.markdown), { recursive: true, mode: 0o700 });
  fs.mkdirSync(path.dirname(places.socket), { recursive: true, mode: 0o700 });
  fs.chmodSync(path.dirname(places.socket), 0o700);
  const engine = await Engine.start(Room.open({ markdown: places.markdown, paths }));
  fs.rmSync(places.socket, { force: true });
  let connections = 0;
  let idleSince = Date.now();
  const graphs = nodeGraphReads(engine.room);
  const extras = {
    ...nodeStageMethods(engine, graphs),
    ...nodeWorktreeMethods(paths.dataDir, key),
    ...nodeStreamMethods(engine),
    ...nodeAgentMethods(engine, paths.dataDir),
    // where this node listens: the room connects to it straight through its ControlMaster's forward from then on
    // (engine/hosts/node-forward.ts), without the relay
    node_socket: async () => ({ socket: places.socket }),
  };
  const server = net.createServer((socket) => {
    connections++;
    const stop = serveLines(engine, streamOf(socket), extras);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      stop();
      connections--;
      idleSince = Date.now();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(places.socket, () => resolve());
  });
  fs.chmodSync(places.socket, 0o600);
  console.error(`[node] ${key}: serving ${places.markdown} on ${places.socket} (pid ${process.pid})`);
  let ending: Promise<number> | null = null;
  const end = (why: string) =>
    (ending ??= (async () => {
      console.error(`[node] ${key}: ending (${why})`);
      clearInterval(idle);
      server.close();
      fs.rmSync(places.socket, { force: true });
      await engine.close();
      return 0;
    })());
  const idle = setInterval(() => {
    void engine.call(engine.operator(), 'shell_list', {}).then(({ shells }) => {
      // a stage still running (placed by a room that is away now) keeps the node too
      const live = shells.some((s) => s.alive) || graphs.unfinished() > 0;
      if (connections > 0 || live) idleSince = Date.now();
      else if (Date.now() - idleSince > IDLE_EXIT_MS) void end('idle');
    });
  }, 30_000);
  idle.unref();
  return new Promise<number>((resolve) => {
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, () => void end(signal).then(resolve));
    server.on('close', () => void end('closed').then(resolve));
  });
}

