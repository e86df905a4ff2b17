import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { LineExtras } from '../api/line-door';
import { AGENT_CLIENTS, AGENT_UNSET_ENV } from '../common/agent-clients';
import type { Caller } from '../common/dto';
import { RoomError } from '../common/errors';
import { agentRunsFolder, clientVersions, createPrivateFile, ensureOwnDir, findOnPath, sampleTrees, viewOf, type Engine, type RemoteAgentOpen } from '../engine/index';

/**
 * What a room node answers for an agent the placing room starts on its host (docs/hosts.md, "Agents on a host"):
 * `node_agent_open`, called as the agent (a participant of the node's room, so the host's sandbox applies). The
 * node finds the client on its own PATH (the host's login PATH: the node was started by a login shell), writes
 * the client's per-run configuration into a private run folder here (0700, its files 0600, in the node's data
 * folder: hidden from every other agent's sandbox, readable in this one's), and starts the client in a terminal
 * of its own with the room's variables in its environment only (the token among them: never on a command line,
 * never in a file). The folder goes when the terminal ends.
 */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What the room sends to start an agent's client here (engine/hosts/remote-agent-port.ts). */
type AgentOpen = RemoteAgentOpen;

function openOf(params: unknown): AgentOpen {
  const p = (params ?? {}) as Record<string, unknown>;
  const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');
  const bad = (what: string) => new RoomError('INVALID_INPUT', `node_agent_open: ${what}`);
  if (typeof p.client !== 'string' || !Object.hasOwn(AGENT_CLIENTS, p.client)) throw bad('client is one of the clients the room can start');
  if (typeof p.url !== 'string' || !/^http:\/\/127\.0\.0\.1:\d{1,5}\/mcp$/.test(p.url)) throw bad("url is the room's endpoint as forwarded to this host's loopback");
  if (!strings(p.args) || typeof p.cwd !== 'string' || typeof p.name !== 'string') throw bad('args, cwd and name as agent_start gives them');
  const env = p.env as Record<string, unknown> | null;
  if (typeof env !== 'object' || env === null || !Object.entries(env).every(([k, v]) => NAME.test(k) && typeof v === 'string')) throw bad('env is a map of variables');
  if (p.program !== undefined && typeof p.program !== 'string') throw bad('program is a program name or path');
  return p as unknown as AgentOpen;
}

export function nodeAgentMethods(engine: Engine, dataDir: string): LineExtras {
  const runsRoot = agentRunsFolder(dataDir);
  // each client's version, asked here (the host's login PATH) once per install, as a local run's is
  const { cachedVersion } = clientVersions();
  return {
    // a port of this host's loopback free now, for the placing room's reverse forward to its endpoint (the
    // forward is asked for it by name; one taken meanwhile makes that fail, and the room asks again)
    node_free_port: async (caller: Caller) => {
      if (caller.role !== 'operator') throw new RoomError('FORBIDDEN', 'node_free_port is the placing room\'s own call');
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      const port = (server.address() as net.AddressInfo).port;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return { port };
    },
    // the process trees of the agents' terminals here (their processes and CPU time): the placing room's stall
    // watch reads them as it reads a local run's (engine/agents/stall-watch.ts); a shell not here is left out
    node_agent_trees: async (caller: Caller, params: unknown) => {
      if (caller.role !== 'operator') throw new RoomError('FORBIDDEN', "node_agent_trees is the placing room's own call");
      const ids = (params as { shellIds?: unknown } | null)?.shellIds;
      if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string') || ids.length > 1000) throw new RoomError('INVALID_INPUT', 'node_agent_trees: shellIds is a list of shell ids');
      const tags = new Map<string, string>();
      for (const id of ids as string[]) {
        try {
          tags.set(id, engine.shells.get(caller, id).spec.tag);
        } catch {
          // ended and let go here
        }
      }
      const samples = sampleTrees([...tags.values()]);
      const trees: Record<string, { processes: string; cpuMs: number }> = {};
      for (const [id, tag] of tags) {
        const sample = samples.get(tag);
        if (sample) trees[id] = sample;
      }
      return { trees };
    },
    node_agent_open: async (caller: Caller, params: unknown) => {
      if (caller.role !== 'agent') throw new RoomError('FORBIDDEN', 'node_agent_open starts an agent as that agent (the placing room\'s call with "as")');
      const open = openOf(params);
      const client = AGENT_CLIENTS[open.client];
      const program = client.program ?? open.program;
      if (!program) throw new RoomError('INVALID_INPUT', 'client "command" needs its program');
      const file = findOnPath(program, process.env.PATH ?? '');
      if (!file) {
        throw new RoomError('NOT_FOUND', `${client.label} (${program}) is not on this host's login PATH${client.install ? `: install it here with "${client.install}"` : ': give its full path on the host'}`);
      }
      const cwd = path.resolve(os.homedir(), open.cwd);
      if (!fs.existsSync(cwd) || !fs.statSync(cwd).isDirectory()) throw new RoomError('INVALID_INPUT', `cwd ${cwd} is not an existing folder on this host`);
      const version = await cachedVersion(file, client.versionArgs);
      ensureOwnDir(runsRoot);
      const runDir = path.join(runsRoot, randomBytes(8).toString('hex'));
      fs.mkdirSync(runDir, { mode: 0o700 });
      try {
        const plan = client.plan(open.url, (f) => path.join(runDir, f));
        for (const f of plan.files) createPrivateFile(path.join(runDir, f.name), f.content);
        let args = [...plan.args, ...open.args];
        if (open.resume && client.resume) args = client.resume(args, open.prompted === true) ?? args;
        const session = engine.shells.open(caller, {
          name: open.name,
          cwd,
          shell: file,
          args,
          env: { ...plan.env, ...open.env },
          unsetEnv: AGENT_UNSET_ENV,
          ...(open.cols ? { cols: open.cols } : {}),
          ...(open.rows ? { rows: open.rows } : {}),
          agent: { client: client.id, label: client.label, participant: caller.name, version },
          runFolder: runDir,
        });
        void session.waitExit().then(() => fs.rmSync(runDir, { recursive: true, force: true }));
        return { shell: viewOf(session), runDir };
      } catch (error) {
        fs.rmSync(runDir, { recursive: true, force: true });
        throw error;
      }
    },
  };
}
