import path from 'node:path';
import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { ShellView } from '../../common/methods/shells';
import { attachViewer, checkInputSize, exitedRefusal, type PtyShell, type RemoteShellPort, type ShellAttachment, type ShellViewer, type Watermarks } from '../shells/index';
import { decodeCursor, numberAt } from '../core/paging';
import type { LinkState, NodeLink } from './node-link';
import type { NodeLinks } from './node-links';
import { RemoteMirror } from './remote-mirror';

interface RemoteShell {
  host: string;
  /** Who opened it here (visibility follows the room's rule: its owner, or anyone with operate). */
  owner: string;
  /** The participant of the node's room it runs as (an agent's name, so the host's sandbox applies); null: the node's operator. */
  nodeAs: string | null;
  view: ShellView;
  /** Its output, streamed here (remote-mirror.ts): reads and waits are served from this copy. */
  mirror: RemoteMirror;
  /** What a live view typed, sent to the host one after another (in order). */
  typing: Promise<void>;
}

type IoOutput = MethodOutputs['shell_io'];
/** The offset inside a shell cursor (the node's and the copy's are the same offsets). */
const offsetOf = (cursor: string, shellId: string) => numberAt(decodeCursor(cursor, 'shell', shellId, 'read on'), 0, 'read on');

/**
 * Shells on the room's hosts: each opened through the host's room node (node-link.ts) and known here by the
 * node's own id, so an agent's shell_io, shell_run and shell_close reach it like any shell of the room (same
 * tools, same ids, audited here). Its output is streamed into a copy here (remote-mirror.ts): shell_io sends
 * input to the node, and reads and waits from the copy. The node keeps them running while the link is down; a
 * call then says the host is unreachable and the work unknown until it is back.
 */
export class RemoteShells implements RemoteShellPort {
  private readonly shells = new Map<string, RemoteShell>();

  /**
   * `links`: the room's links to its hosts' nodes, shared with the stages placed there. The shells placed before
   * the room (re)started are adopted again: same ids, same owners, followed from the node, which kept them.
   */
  constructor(private readonly links: NodeLinks) {
    for (const row of links.placedShells()) {
      let view: ShellView;
      try {
        view = JSON.parse(row.view) as ShellView;
      } catch {
        links.unplaceShell(row.id);
        continue;
      }
      const mirror = this.mirror(row.host, view, row.nodeAs);
      this.shells.set(row.id, { host: row.host, owner: row.owner, nodeAs: row.nodeAs, view, mirror, typing: Promise.resolve() });
      mirror.followSoon();
    }
  }

  /** The room's copy of a shell on a host (what a live view and shell-log:// read), if the caller may see it. */
  session(caller: Caller, id: string): PtyShell {
    return this.record(caller, id).mirror.session;
  }

  private readonly changeListeners = new Set<() => void>();

  /**
   * Hears a change the shell list shows: a host with shells on it became unreachable or reachable again, or a
   * shell's status changed as its copy here sees it (the list then reads the node's view again).
   */
  onChange(listener: () => void): void {
    this.changeListeners.add(listener);
    this.links.onReachability((alias) => {
      if ([...this.shells.values()].some((s) => s.host === alias)) listener();
    });
  }

  /** The node no longer has the shell (it restarted, or let an ended shell go): the room lets it go too. */
  private forget(id: string): void {
    const shell = this.shells.get(id);
    if (!shell) return;
    this.shells.delete(id);
    shell.mirror.dispose();
    this.links.unplaceShell(id);
  }

  /** The shell's output followed (its stream restarted if it dropped); a node that no longer has it is said so. */
  private async follow(id: string, shell: RemoteShell): Promise<void> {
    try {
      await shell.mirror.follow();
    } catch (error) {
      if (!(error instanceof RoomError) || error.code !== 'NOT_FOUND') throw error;
      this.forget(id);
      throw new RoomError('NOT_FOUND', `unknown shell ${id}: host ${shell.host}'s node no longer has it (the node restarted, or the shell ended and was let go); open a new one with shell_open`);
    }
  }

  /** Each host's link as it stands (for host_list). */
  linkState(alias: string): LinkState | null {
    return this.links.state(alias);
  }

  private link(alias: string): NodeLink {
    return this.links.get(alias);
  }

  /** The host, if this caller may place work on it: a host of the room, and for an agent one the person allowed. */
  private allowed(caller: Caller, alias: string): void {
    this.links.allowed(caller, alias);
  }

  private record(caller: Caller, id: string): RemoteShell {
    const shell = this.shells.get(id);
    if (!shell || (shell.owner !== caller.name && !caller.capabilities.includes('operate'))) throw new RoomError('NOT_FOUND', `unknown shell ${id}: see shell_list`);
    return shell;
  }

  owns(id: string): boolean {
    return this.shells.has(id);
  }

  async open(caller: Caller, input: MethodInput<'shell_open'>): Promise<MethodOutputs['shell_open']> {
    const { host, ...rest } = input;
    if (host === undefined) throw new RoomError('INTERNAL', 'a remote shell without a host');
    this.allowed(caller, host);
    if (rest.handoffId !== undefined) throw new RoomError('INVALID_INPUT', `a handoff's workspace is not yet placed on a host: open the shell here (without host) for handoff ${rest.handoffId}`);
    const nodeAs = caller.role === 'operator' ? null : caller.name;
    const { shell } = await this.link(host).call<MethodOutputs['shell_open']>('shell_open', rest, nodeAs ?? undefined);
    return { shell: await this.place(host, caller.name, nodeAs, shell) };
  }

  /**
   * A shell the host's node opened for an agent the room started there (remote-agents.ts): known here from now on,
   * like one opened with shell_open (its output followed into a copy here, kept for a room that restarts), as
   * `owner`'s, run there as `nodeAs`.
   */
  adopt(host: string, owner: string, nodeAs: string, shell: ShellView): Promise<ShellView> {
    return this.place(host, owner, nodeAs, shell);
  }

  /** A shell the node opened, known here from now on: its output followed into a copy, its place kept for a restart. */
  private async place(host: string, owner: string, nodeAs: string | null, shell: ShellView): Promise<ShellView> {
    const view = { ...shell, owner, host };
    const mirror = this.mirror(host, view, nodeAs);
    this.shells.set(shell.id, { host, owner, nodeAs, view, mirror, typing: Promise.resolve() });
    this.links.placeShell({ id: shell.id, host, owner, nodeAs, view: JSON.stringify(view), openedAt: this.links.now() });
    await mirror.follow().catch(() => undefined); // retried on its own, and by the first read
    return view;
  }

  /** The last view of a remote shell (kept fresh by shell_list and the run's watch), or null. */
  lastView(id: string): ShellView | null {
    const shell = this.shells.get(id);
    return shell ? shell.mirror.shown(shell.view, true) : null;
  }

  /** The room's copy of a shell on a host (its screen, status and input marks here), whoever asks: the agent watch's. */
  copy(id: string): PtyShell | null {
    return this.shells.get(id)?.mirror.session ?? null;
  }

  /**
   * Types `text` into a shell on a host as the room's own keys (an agent's watch, its envelope): marked as input on
   * the copy here at once (a watch's next look sees it), sent there after what was typed before it.
   */
  type(id: string, text: string): Promise<void> {
    const shell = this.shells.get(id);
    if (!shell) return Promise.reject(new RoomError('NOT_FOUND', `unknown shell ${id}: see shell_list`));
    shell.mirror.session.lastInputAt = Date.now();
    return this.send(id, shell, text);
  }

  /** Sends keys to a shell on its host after what was typed into it before (the one order of its typing). */
  private send(id: string, shell: RemoteShell, text: string): Promise<void> {
    const sent = shell.typing.then(() => this.link(shell.host).call<IoOutput>('shell_io', { shellId: id, text, maxBytes: 1 }, shell.nodeAs ?? undefined)).then(() => undefined);
    shell.typing = sent.catch(() => undefined);
    return sent;
  }

  /**
   * The live terminals on the hosts the room started for `participant`'s agent runs (agent_start there: its
   * client, never a shell the agent opened, where a line would run as a command): their ids and hosts.
   */
  agentRuns(participant: string): { id: string; host: string }[] {
    return [...this.shells.entries()].filter(([, s]) => s.view.agent?.participant === participant && s.mirror.session.alive).map(([id, s]) => ({ id, host: s.host }));
  }

  /** Marks what an agent run's watch learned: the shell ended there, or its host is (un)reachable. */
  note(id: string, change: Partial<ShellView>): void {
    const known = this.shells.get(id);
    if (known) known.view = { ...known.view, ...change };
  }

  private mirror(host: string, view: ShellView, nodeAs: string | null): RemoteMirror {
    const limits = this.links.limits;
    const mirror = new RemoteMirror(view, {
      link: () => this.link(host),
      nodeAs: nodeAs ?? undefined,
      scrollbackBytes: limits.shellScrollbackBytes,
      stallMs: limits.viewerStallMs,
      now: () => this.links.now(),
      onGap: (bytes) => this.links.lost(host, view.id, bytes),
      onGone: () => this.forget(view.id),
    });
    mirror.session.onStatusChange(() => {
      for (const listener of this.changeListeners) listener();
    });
    return mirror;
  }

  /**
   * Input goes to the node (and is never sent twice: whether a copy arrived over a link that dropped cannot be
   * known); the read and the wait are `local`'s, over the shell's copy here, from where the node said the output
   * stood before the input.
   */
  async io(caller: Caller, input: MethodInput<'shell_io'>, local: (session: PtyShell, input: MethodInput<'shell_io'>) => Promise<IoOutput>): Promise<IoOutput> {
    const shell = this.record(caller, input.shellId);
    await this.follow(input.shellId, shell);
    const { text, input: keys, resize, ...read } = input;
    let cursor = input.cursor;
    if (text !== undefined || keys !== undefined || resize !== undefined) {
      if (text !== undefined || keys !== undefined) shell.mirror.session.lastInputAt = Date.now();
      const sent = await this.link(shell.host).call<IoOutput>('shell_io', { shellId: input.shellId, text, input: keys, resize, maxBytes: 1 }, shell.nodeAs ?? undefined);
      cursor ??= sent.cursor;
    }
    const out = await local(shell.mirror.session, { ...read, ...(cursor !== undefined ? { cursor } : {}) });
    // a reader paging by cursor holds the stream while it keeps reading (not a call that only waits for the end)
    if (input.cursor !== undefined && input.format !== 'screen') shell.mirror.readTo(offsetOf(out.nextCursor, input.shellId));
    return out;
  }

  private async call<T>(host: string, method: string, params: unknown, nodeAs: string | null, again: boolean): Promise<T> {
    try {
      return await this.link(host).call<T>(method, params, nodeAs ?? undefined);
    } catch (error) {
      if (!again || !(error instanceof RoomError) || error.code !== 'UNAVAILABLE') throw error;
      return this.link(host).call<T>(method, params, nodeAs ?? undefined);
    }
  }

  /**
   * A person's live view of a remote shell: the copy's output (paced by their acknowledgements, which hold the
   * host's PTY as a local one's), their size sent to the host when they drive it, and what they type sent to the
   * host in order (checked as shell_io checks it; a keystroke to a host that cannot be reached is lost, and said).
   */
  attach(caller: Caller, id: string, viewer: ShellViewer, from: number, watermarks?: Watermarks): ShellAttachment {
    const shell = this.record(caller, id);
    shell.mirror.followSoon();
    const limits = this.links.limits;
    const session = shell.mirror.session;
    const base = attachViewer(session, caller, viewer, from, limits, () => this.links.now(), watermarks);
    return {
      ...base,
      write: (text) => {
        checkInputSize(text, limits);
        if (!session.alive) throw exitedRefusal(session);
        if (text.length === 0) return;
        session.lastInputAt = Date.now();
        this.send(id, shell, text).catch((error: unknown) => console.error(`[hosts] typing into shell ${id} on ${shell.host} failed: ${error instanceof Error ? error.message : String(error)}`));
      },
    };
  }

  async run(caller: Caller, input: MethodInput<'shell_run'>): Promise<MethodOutputs['shell_run']> {
    const shell = this.record(caller, input.shellId);
    return this.link(shell.host).call('shell_run', input, shell.nodeAs ?? undefined);
  }

  async close(caller: Caller, input: MethodInput<'shell_close'>): Promise<MethodOutputs['shell_close']> {
    const shell = this.record(caller, input.shellId);
    let out: MethodOutputs['shell_close'];
    try {
      out = await this.link(shell.host).call<MethodOutputs['shell_close']>('shell_close', input, shell.nodeAs ?? undefined);
    } catch (error) {
      // the node has no such shell (any more): the room lets it go as well
      if (error instanceof RoomError && error.code === 'NOT_FOUND') this.forget(input.shellId);
      throw error;
    }
    this.forget(input.shellId);
    return out;
  }

  /**
   * Ends `owner`'s shells (null: everyone's) on the hosts opened in `folder` or below it (a handoff's worktree
   * there: completing ends its assignee's work in it, as here); how many. A host that cannot be reached keeps
   * its shells (they are ended when asked again, at the next step that ends the work).
   */
  async closeIn(owner: string | null, folder: string): Promise<number> {
    const within = (cwd: string) => {
      const rel = path.posix.relative(folder, cwd);
      return rel === '' || (!rel.startsWith('..') && !path.posix.isAbsolute(rel));
    };
    const mine = [...this.shells.entries()].filter(([, s]) => (owner === null || s.owner === owner) && within(s.view.cwd));
    const closed = await Promise.all(
      mine.map(async ([id, s]) => {
        try {
          await this.link(s.host).call('shell_close', { shellId: id }, s.nodeAs ?? undefined);
        } catch (error) {
          // gone there already: nothing to end; unreachable: kept, to be ended next time
          if (!(error instanceof RoomError) || error.code !== 'NOT_FOUND') return 0;
        }
        // let go as a closed shell is: its mirror ended, its record gone (a restarted room does not look for it)
        this.forget(id);
        return 1;
      }),
    );
    return closed.reduce<number>((a, b) => a + b, 0);
  }

  /** The caller's remote shells, as each host's node has them now; a host that cannot be reached keeps the last view, marked. */
  async list(caller: Caller): Promise<ShellView[]> {
    const mine = [...this.shells.values()].filter((s) => s.owner === caller.name || caller.capabilities.includes('operate'));
    const hosts = [...new Set(mine.map((s) => s.host))];
    await Promise.all(
      hosts.map(async (alias) => {
        try {
          const { shells } = await this.call<MethodOutputs['shell_list']>(alias, 'shell_list', {}, null, true);
          for (const fresh of shells) {
            const known = this.shells.get(fresh.id);
            if (known) known.view = { ...fresh, owner: known.owner, host: alias, hostReachable: true };
          }
        } catch {
          for (const s of mine) if (s.host === alias) s.view = { ...s.view, hostReachable: false };
        }
      }),
    );
    return mine.map((s) => s.mirror.shown(s.view));
  }

  closeLinks(): void {
    for (const shell of this.shells.values()) shell.mirror.dispose();
    this.links.close();
  }
}
