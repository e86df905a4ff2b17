import { RoomError } from '../../common/errors';
import type { EngineContext } from '../room/index';
import { HostRepo, type HostShellRecord } from '../store/hosts';
import { NodeLink, type LinkState } from './node-link';
import { controlDirFor } from './ssh';
import { sshConfigFile } from './ssh-config';

/**
 * The room's links to its hosts' nodes, one per host, shared by the shells and the stages placed there (one
 * SSH connection per host). A link that drops is said once as `host.unreachable` and its coming back as
 * `host.reachable`: the host's work is unknown in between, never failed.
 */
export class NodeLinks {
  private readonly links = new Map<string, NodeLink>();
  /** What each host was last said to be (events only on a change). */
  private readonly said = new Map<string, boolean>();
  private readonly repo: HostRepo;

  constructor(
    private readonly ctx: EngineContext,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.repo = new HostRepo(ctx.room.db);
  }

  /** The room closed its links: nothing reconnects after that. */
  closed = false;

  /** The room's clock (what rows and log records are stamped with). */
  now(): string {
    return this.ctx.now();
  }

  /** The room's limits (a remote shell's copy here keeps a scrollback like a local shell's). */
  get limits(): EngineContext['limits'] {
    return this.ctx.limits;
  }

  /** Output of a shell on `alias` lost before it reached the room (the node's scrollback moved on while the link was down): said as an event. */
  lost(alias: string, shellId: string, bytes: number): void {
    try {
      this.ctx.commit(() => ({ value: undefined, events: [{ kind: 'host.output_lost', actor: null, subject: alias, data: { shellId, bytes } }] }));
    } catch {
      // the room is closing: the readers are still told (truncated)
    }
  }

  /** The shells the room placed on its hosts (kept across restarts, to be adopted again). */
  placedShells(): HostShellRecord[] {
    return this.repo.shells();
  }

  placeShell(shell: HostShellRecord): void {
    this.ctx.commit(() => ({ value: this.repo.placeShell(shell), events: [] }));
  }

  unplaceShell(id: string): void {
    try {
      this.ctx.commit(() => ({ value: this.repo.unplaceShell(id), events: [] }));
    } catch {
      // the room is closing: adopted again at the next start, and let go then
    }
  }

  get(alias: string): NodeLink {
    if (this.closed) throw new RoomError('UNAVAILABLE', `the room is closing: host ${alias} is not reached any more`);
    let link = this.links.get(alias);
    if (!link) {
      const target = { alias, config: sshConfigFile(this.env), controlDir: controlDirFor(this.ctx.room.paths.configDir) };
      link = new NodeLink(target, this.ctx.room.id, () => this.ctx.now(), (state) => this.changed(alias, state));
      this.links.set(alias, link);
    }
    return link;
  }

  /** Each host's link as it stands (null: not used since the room started). */
  state(alias: string): LinkState | null {
    return this.links.get(alias)?.state ?? null;
  }

  /** Whether the host's node answered last time (null: not tried yet). */
  reachable(alias: string): boolean | null {
    return this.said.get(alias) ?? null;
  }

  private readonly reachabilityListeners = new Set<(alias: string) => void>();

  /** Hears each host that became unreachable or reachable again (the views that list its shells read them again). */
  onReachability(listener: (alias: string) => void): void {
    this.reachabilityListeners.add(listener);
  }

  private changed(alias: string, state: LinkState): void {
    if (state.state !== 'connected' && state.state !== 'unreachable') return;
    const reachable = state.state === 'connected';
    const before = this.said.get(alias);
    this.said.set(alias, reachable);
    if (before === reachable || (before === undefined && reachable)) return;
    for (const listener of this.reachabilityListeners) listener(alias);
    const data = reachable ? {} : { error: state.error };
    try {
      this.ctx.commit(() => ({ value: undefined, events: [{ kind: reachable ? 'host.reachable' : 'host.unreachable', actor: null, subject: alias, data }] }));
    } catch {
      // the room is closing (or its disk is full): the link's state is still answered from memory
    }
  }

  /** Refuses a host this caller may not place work on: not a host of the room, or (for an agent) one the person keeps. */
  allowed(caller: { role: string }, alias: string): void {
    const host = this.repo.byAlias(alias);
    if (!host) throw new RoomError('NOT_FOUND', `no host named "${alias}" in this room: the person adds hosts ("ce host add ALIAS"); see host_list or ask them`);
    if (caller.role !== 'operator' && !host.agents) {
      throw new RoomError('FORBIDDEN', `host ${alias} is for the person's own work: agents may not place work on it (the person allows it with "ce host add ${alias}")`);
    }
  }

  close(): void {
    this.closed = true;
    for (const link of this.links.values()) link.close();
    this.links.clear();
  }
}
