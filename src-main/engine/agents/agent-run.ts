import { execFile } from 'node:child_process';
import { AGENT_CLIENTS, type AgentClient, type AgentClientId } from '../../common/agent-clients';
import type { EarlierAgentRun } from '../../common/methods/agents';
import type { MethodInput } from '../../common/contract';
import type { Caller } from '../../common/dto';
import type { ShellView } from '../../common/methods/shells';
import type { EngineContext } from '../room/index';
import type { ShellRegistry } from '../shells/index';
import { AgentWatch, type WatchPolicy } from './agent-watch';
import type { RemoteAgentPort, RoomForward } from '../hosts/index';
import { sampleTrees, type TreeSample } from './stall-watch';

/** One agent the room started, while its terminal lives. */
export interface AgentRun {
  shellId: string;
  client: AgentClient;
  participant: string;
  version: string | null;
  cwd: string;
  startedAt: string;
  runDir: string;
  /** The handoff it was started on (agent_start with task), or null. */
  handoffId: string | null;
  /** Who stopped it (agent_stop), for the agent.ended event; null while it runs or when it ended by itself. */
  stoppedBy: string | null;
  /** Who started it and how: a stalled run restarted (its watch's policy) starts again the same way, resuming. */
  startedBy: Caller;
  input: MethodInput<'agent_start'>;
  /** The host its terminal is on (agent_start with host: remote-start.ts); absent or null: this machine. */
  host?: string | null;
  /** On a host: the room's endpoint forwarded there for this run. */
  forward?: RoomForward;
}

/** The first line a client prints for `versionArgs` (10 s at most), or null. */
export function versionOf(file: string, args: string[]): Promise<string | null> {
  if (args.length === 0) return Promise.resolve(null);
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 10_000, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } }, (error, stdout) => {
      const line = (stdout ?? '').split('\n').find((l) => l.trim() !== '')?.trim() ?? null;
      resolve(error && !line ? null : (line?.slice(0, 120) ?? null));
    });
  });
}

/**
 * The watch of the room's runs (agent-watch.ts): their terminals, the room's clocks, its events, and `restart`. A
 * run on a host is watched on the room's copy of its terminal (its screen and status, read here), its process
 * tree as the host's node reads it, and the room's keys sent there.
 */
export function watchRuns(ctx: EngineContext, runs: Map<string, AgentRun>, shells: ShellRegistry, restart: (shellId: string) => Promise<string>, remote?: RemoteAgentPort): AgentWatch {
  return new AgentWatch(
    {
      shell: (id) => {
        const run = runs.get(id);
        if (run?.host) return remote?.copy(id) ?? null;
        try {
          return run ? shells.get(run.startedBy, id) : null;
        } catch {
          return null; // closed and let go
        }
      },
      trees: async (live) => {
        const out = new Map<string, TreeSample | null>();
        const here = live.filter((l) => !runs.get(l.shellId)?.host);
        const samples = sampleTrees(here.map((l) => l.shell.spec.tag));
        for (const l of here) out.set(l.shellId, samples.get(l.shell.spec.tag) ?? null);
        const byHost = new Map<string, string[]>();
        for (const l of live) {
          const host = runs.get(l.shellId)?.host;
          if (host) byHost.set(host, [...(byHost.get(host) ?? []), l.shellId]);
        }
        await Promise.all(
          [...byHost].map(async ([host, ids]) => {
            const there = remote ? await remote.trees(host, ids) : null;
            // a host that did not answer: its runs are left out (not looked at this time)
            if (there) for (const id of ids) out.set(id, there.get(id) ?? null);
          }),
        );
        return out;
      },
      type: (id, shell, bytes, by) => {
        if (!runs.get(id)?.host) return shell.write(bytes, by, ctx.now());
        remote?.type(id, bytes).catch((error: unknown) => console.error(`[agents] keys for the run in shell ${id} did not reach its host: ${error instanceof Error ? error.message : String(error)}`));
      },
      now: () => new Date(ctx.now()),
      elapsed: () => ctx.elapsedMs(),
      record: (kind, participant, data) => {
        try {
          ctx.commit(() => ({ value: undefined, events: [{ kind, actor: typeof data.by === 'string' ? data.by : null, subject: participant, data }] }));
        } catch {
          // the room closed meanwhile: nothing is left to record into
        }
      },
      restart,
    },
    ctx.limits.agentWatchTickMs,
  );
}

/**
 * How a stalled run starts again: as it was started, going on with its conversation (its client's resume
 * arguments), as the same participant, in the same folder (a task's worktree: its handoff is not handed
 * again), at its terminal's size, with its watch's policy.
 */
export function againInput(run: AgentRun, policy: WatchPolicy, shell: Pick<ShellView, 'cols' | 'rows'>): MethodInput<'agent_start'> {
  const { task: _task, repo: _repo, base: _base, continues: _continues, hostRepo: _hostRepo, ...again } = run.input;
  return { ...again, cwd: run.cwd, participant: run.participant, resume: true, cols: shell.cols, rows: shell.rows, onStall: policy.onStall, onLimit: policy.onLimit, stallMinutes: policy.stallMs / 60_000 };
}

/** The newest start of each participant that has no terminal now, from the room's events (they outlive runners). */
export function earlierRuns(ctx: EngineContext, running: Set<string>, commands: Map<string, string[]>): EarlierAgentRun[] {
  const seen = new Set<string>(running);
  const out: EarlierAgentRun[] = [];
  for (const e of ctx.room.events.latestOfKind('agent.started', 200)) {
    const d = e.data as { client?: AgentClientId; cwd?: string; version?: string | null; host?: string };
    const participant = e.subject;
    if (!participant || seen.has(participant) || !d.client || !d.cwd || !(d.client in AGENT_CLIENTS)) continue;
    seen.add(participant);
    const record = ctx.room.participants.byName(participant);
    if (!record || record.revokedAt !== null) continue; // stopped with its token revoked: nothing to start again as
    const where = `${d.host ? `--host ${d.host} ` : ''}--cwd ${d.cwd}`;
    const again = d.client === 'command' ? `ce agent start command ${where} --as ${participant} -- …` : `ce agent start ${d.client} ${where} --as ${participant}${AGENT_CLIENTS[d.client].resume ? ' --resume' : ''}`;
    const command = d.client === 'command' ? commands.get(participant) : undefined;
    out.push({ participant, client: d.client, cwd: d.cwd, version: d.version ?? null, startedAt: e.at, again, ...(command ? { command } : {}) });
    if (out.length >= 20) break;
  }
  return out;
}
