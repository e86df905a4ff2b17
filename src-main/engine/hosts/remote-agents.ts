import { RoomError } from '../../common/errors';
import type { MethodOutputs } from '../../common/contract';
import type { ShellView } from '../../common/methods/shells';
import type { PtyShell } from '../shells/index';
import type { RemoteAgentOpen, RemoteAgentPort, RoomForward } from './remote-agent-port';
import type { NodeLinks } from './node-links';
import type { RemoteShells } from './remote-shells';
import { sshControl } from './ssh';

/** How long a look at a host's process trees may take before the watch goes on without it. */
const TREES_MS = 5_000;
/** How long one wait for a run's end asks the node (it answers sooner when the shell ends). */
const WAIT_MS = 60_000;
/** Pieces typed for a run asked within this of the one before go with it (a rejection's line and its Enter). */
const TOGETHER_MS = 1_000;
/** The least time between two such pieces reaching the host (as the local path's Enter follows its line). */
const APART_MS = 150;

/** Text the room typed for an agent run on a host that did not reach its terminal there (said as an event). */
export interface TypingLost {
  host: string;
  shellId: string;
  participant: string;
  handoffId: string;
  error: string;
}

/** What the room typed into one run's terminal last: when it was asked, and whether it reached the host. */
interface Typed {
  askedAt: number;
  done: Promise<{ ok: boolean; at: number }>;
}

/**
 * Agents started on the room's hosts (docs/hosts.md, "An agent on a host"). The room's MCP endpoint listens on
 * this machine's loopback only; for each run, the room asks the link's own ControlMaster for a reverse forward
 * (`ssh -O forward -R 127.0.0.1:PORT:127.0.0.1:ROOM`) from a port of the host's loopback to the endpoint, and
 * accepts the Host header `127.0.0.1:PORT` for that run's participant only, until the run ends and the forward
 * is cancelled (`ssh -O cancel`). No port opens on this machine; the connection is the person's own.
 */
export class RemoteAgents implements RemoteAgentPort {
  /** The forwarded Host headers the front door accepts, each for one run's participant. */
  private readonly forwarded = new Map<string, string>();

  constructor(
    private readonly links: NodeLinks,
    private readonly shells: RemoteShells,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  /** Per run's terminal on a host: what the room typed there last for its agent (typeToRuns). */
  private readonly typed = new Map<string, Typed>();

  /** The participant a forwarded Host header was made for, or null (not one of the room's forwards). */
  participantFor(host: string): string | null {
    return this.forwarded.get(host) ?? null;
  }

  allowed(caller: { role: string }, host: string): void {
    this.links.allowed(caller, host);
  }

  async forward(host: string, roomUrl: string, participant: string): Promise<RoomForward> {
    const link = this.links.get(host);
    const roomPort = Number(new URL(roomUrl).port);
    // a free port of the host's loopback, chosen by its node (which connects the link, so the forward is asked of
    // its ControlMaster), named in the forward: cancelling that spec ends that run's forward alone. (ssh's own
    // "-R 0:…" prints the port it chose, but a second run asking the same gets the same forward back, and it is
    // cancelled only as "-R 0:…", by whichever run ends first: tried on OpenSSH 9.2)
    for (let attempt = 0; ; attempt++) {
      const { port } = await link.call<{ port: number }>('node_free_port', {});
      const spec = `127.0.0.1:${port}:127.0.0.1:${roomPort}`;
      const out = await sshControl(link.sshTarget, ['-O', 'forward', '-R', spec], this.env);
      if (out.code !== 0) {
        if (attempt < 2 && /forwarding failed|Address already in use/i.test(out.stderr)) continue; // taken meanwhile
        throw new RoomError('UNAVAILABLE', `the room's endpoint could not be forwarded to ${host} (${out.stderr.trim().split('\n').slice(-1)[0] ?? `exit ${out.code}`}): check that its sshd allows forwarding (AllowTcpForwarding), then start the agent again`);
      }
      const hostHeader = `127.0.0.1:${port}`;
      this.forwarded.set(hostHeader, participant);
      let cancelled = false;
      return {
        url: `http://${hostHeader}/mcp`,
        port,
        roomPort,
        cancel: async () => {
          if (cancelled) return;
          cancelled = true;
          this.forwarded.delete(hostHeader);
          await sshControl(link.sshTarget, ['-O', 'cancel', '-R', spec], this.env);
        },
        // the same port: the run's configuration names it. A forward still standing is not made twice (ssh
        // answers the same); one whose port was taken meanwhile fails, and is asked for again next time
        renew: async () => !cancelled && (await sshControl(link.sshTarget, ['-O', 'forward', '-R', spec], this.env)).code === 0,
      };
    }
  }

  forwardAgain(host: string, participant: string, was: { port: number; roomPort: number }, roomUrl: () => string | null, stood: (roomPort: number) => void): RoomForward {
    const hostHeader = `127.0.0.1:${was.port}`;
    this.forwarded.set(hostHeader, participant);
    const specTo = (roomPort: number) => `127.0.0.1:${was.port}:127.0.0.1:${roomPort}`;
    const target = () => this.links.get(host).sshTarget;
    let standing: number | null = null;
    let cancelled = false;
    const forward: RoomForward = {
      url: `http://${hostHeader}/mcp`,
      port: was.port,
      roomPort: was.roomPort,
      cancel: async () => {
        if (cancelled) return;
        cancelled = true;
        this.forwarded.delete(hostHeader);
        if (standing !== null && !this.links.closed) await sshControl(target(), ['-O', 'cancel', '-R', specTo(standing)], this.env);
      },
      renew: async () => {
        const url = roomUrl();
        if (cancelled || !url || this.links.closed) return false;
        const roomPort = Number(new URL(url).port);
        // the room before this one left its forward on a connection that outlived it (ControlPersist): to its port
        if (standing === null && was.roomPort !== roomPort) await sshControl(target(), ['-O', 'cancel', '-R', specTo(was.roomPort)], this.env);
        if ((await sshControl(target(), ['-O', 'forward', '-R', specTo(roomPort)], this.env)).code !== 0) return false;
        if (standing !== roomPort) {
          standing = roomPort;
          forward.roomPort = roomPort;
          stood(roomPort);
        }
        return true;
      },
    };
    return forward;
  }

  async commitsPast(host: string, work: { hostRepo: string; handoffId: string; since: string }): Promise<{ head: string; commits: number } | null> {
    const out = await this.links.get(host).call<{ head: string | null; commits: number }>('node_worktree_commits', work);
    return out.head ? { head: out.head, commits: out.commits } : null;
  }

  async open(host: string, participant: string, open: RemoteAgentOpen): Promise<ShellView> {
    const { shell } = await this.links.get(host).call<{ shell: ShellView }>('node_agent_open', open, participant);
    return this.shells.adopt(host, participant, participant, shell);
  }

  view(shellId: string): ShellView | null {
    return this.shells.lastView(shellId);
  }

  copy(shellId: string): PtyShell | null {
    return this.shells.copy(shellId);
  }

  type(shellId: string, text: string): Promise<void> {
    return this.shells.type(shellId, text);
  }

  /**
   * Types `text` (about handoff `handoffId`: a rejection's reason, then its Enter) into the terminals of
   * `participant`'s runs on the hosts, as the local path types into its runs here; how many it was sent to. The
   * pieces asked within TOGETHER_MS of each other travel together: each goes after the one before reached the host,
   * at least APART_MS after it, and not at all when it did not (an Enter without its line would submit whatever
   * sits at the prompt). A piece that cannot be delivered (the host unreachable) is said through `lost`, once.
   */
  typeToRuns(participant: string, text: string, handoffId: string, lost: (what: TypingLost) => void): number {
    const runs = this.shells.agentRuns(participant);
    const now = Date.now();
    for (const { id, host } of runs) {
      const before = this.typed.get(id);
      const together = before !== undefined && now - before.askedAt < TOGETHER_MS;
      const after = before?.done ?? Promise.resolve({ ok: true, at: 0 });
      const done = after.then(async (last) => {
        if (together && !last.ok) return last;
        const wait = last.at + APART_MS - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        try {
          await this.shells.type(id, text);
          return { ok: true, at: Date.now() };
        } catch (error) {
          lost({ host, shellId: id, participant, handoffId, error: error instanceof Error ? error.message : String(error) });
          return { ok: false, at: Date.now() };
        }
      });
      const mine: Typed = { askedAt: now, done };
      this.typed.set(id, mine);
      // kept while a piece could still come with it; after that a later piece stands on its own
      void done.then(() => {
        setTimeout(() => {
          if (this.typed.get(id) === mine) this.typed.delete(id);
        }, TOGETHER_MS).unref();
      });
    }
    return runs.length;
  }

  async trees(host: string, shellIds: string[]): Promise<Map<string, { processes: string; cpuMs: number }> | null> {
    if (this.links.closed) return null;
    let timer: NodeJS.Timeout | undefined;
    // a host slow to answer holds no look at the other runs for long: not known this time
    const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), TREES_MS)));
    try {
      const asked = this.links
        .get(host)
        .call<{ trees: Record<string, { processes: string; cpuMs: number }> }>('node_agent_trees', { shellIds })
        .then((out) => new Map(Object.entries(out.trees)));
      return await Promise.race([asked.catch(() => null), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async waitEnd(host: string, shellId: string, participant: string, forward: RoomForward, options: { renewFirst?: boolean } = {}): Promise<{ exitCode: number | null; signal: string | null }> {
    let pause = 500;
    let renew = options.renewFirst === true;
    for (;;) {
      if (this.links.closed) return { exitCode: null, signal: null };
      try {
        // back after the link dropped: its connection is a new one, without the run's forward (asked for at once,
        // then the wait goes on)
        const wait = renew ? 0 : WAIT_MS;
        const out = await this.links.get(host).call<MethodOutputs['shell_io']>('shell_io', { shellId, maxBytes: 1, cursor: 'start', wait: { until: 'exit', timeoutMs: wait } }, participant);
        if (renew) {
          renew = !(await forward.renew());
          // its port not free there yet (the old connection's listener lingers): asked again in a moment
          if (renew) await new Promise((r) => setTimeout(r, 1_000));
        }
        pause = 500;
        this.shells.note(shellId, { hostReachable: true, alive: out.alive, ...(out.exit ? { exitCode: out.exit.exitCode, signal: out.exit.signal } : {}) });
        if (!out.alive) return out.exit ?? { exitCode: null, signal: null };
      } catch (error) {
        // closed there (agent_stop, a completed handoff), or gone with the node: the run is over
        if (error instanceof RoomError && error.code === 'NOT_FOUND') return { exitCode: null, signal: null };
        if (this.links.closed) return { exitCode: null, signal: null };
        // out of reach: the run goes on there and is unknown here until the host is back
        this.shells.note(shellId, { hostReachable: false });
        renew = true;
        await new Promise((r) => setTimeout(r, pause));
        pause = Math.min(pause * 2, 10_000);
      }
    }
  }
}
