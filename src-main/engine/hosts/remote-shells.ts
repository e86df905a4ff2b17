import path from 'node:path';
import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { ShellView } from '../../common/methods/shells';
import type { RemoteShellPort } from '../shells/index';
import type { LinkState, NodeLink } from './node-link';
import type { NodeLinks } from './node-links';

interface RemoteShell {
  host: string;
  /** Who opened it here (visibility follows the room's rule: its owner, or anyone with operate). */
  owner: string;
  /** The participant of the node's room it runs as (an agent's name, so the host's sandbox applies); null: the node's operator. */
  nodeAs: string | null;
  view: ShellView;
}

/**
 * Shells on the room's hosts: each opened through the host's room node (node-link.ts) and known here by the
 * node's own id, so an agent's shell_io, shell_run and shell_close reach it like any shell of the room (same
 * tools, same ids, audited here). The node keeps them running while the link is down; a call then says the host
 * is unreachable and the work unknown until it is back.
 */
export class RemoteShells implements RemoteShellPort {
  private readonly shells = new Map<string, RemoteShell>();

  /** `links`: the room's links to its hosts' nodes, shared with the stages placed there. */
  constructor(private readonly links: NodeLinks) {}

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
    const view = { ...shell, owner: caller.name, host };
    this.shells.set(shell.id, { host, owner: caller.name, nodeAs, view });
    return { shell: view };
  }

  /**
   * A shell the host's node opened for an agent the room started there (remote-agents.ts): known here from now on,
   * like one opened with shell_open, as `owner`'s, run there as `nodeAs`.
   */
  adopt(host: string, owner: string, nodeAs: string, shell: ShellView): ShellView {
    const view = { ...shell, owner, host };
    this.shells.set(shell.id, { host, owner, nodeAs, view });
    return view;
  }

  /** The last view of a remote shell (kept fresh by shell_list and the run's watch), or null. */
  lastView(id: string): ShellView | null {
    return this.shells.get(id)?.view ?? null;
  }

  /** Marks what the run's watch learned: the shell ended there, or its host is (un)reachable. */
  note(id: string, change: Partial<ShellView>): void {
    const known = this.shells.get(id);
    if (known) known.view = { ...known.view, ...change };
  }

  async io(caller: Caller, input: MethodInput<'shell_io'>): Promise<MethodOutputs['shell_io']> {
    const shell = this.record(caller, input.shellId);
    // a read changes nothing: when the link dropped under it, it is asked again over a new connection (input
    // is never sent twice: whether the first copy arrived cannot be known)
    const read = input.text === undefined && input.input === undefined && input.resize === undefined;
    return this.call(shell.host, 'shell_io', input, shell.nodeAs, read);
  }

  private async call<T>(host: string, method: string, params: unknown, nodeAs: string | null, again: boolean): Promise<T> {
    try {
      return await this.link(host).call<T>(method, params, nodeAs ?? undefined);
    } catch (error) {
      if (!again || !(error instanceof RoomError) || error.code !== 'UNAVAILABLE') throw error;
      return this.link(host).call<T>(method, params, nodeAs ?? undefined);
    }
  }

  async run(caller: Caller, input: MethodInput<'shell_run'>): Promise<MethodOutputs['shell_run']> {
    const shell = this.record(caller, input.shellId);
    return this.link(shell.host).call('shell_run', input, shell.nodeAs ?? undefined);
  }

  async close(caller: Caller, input: MethodInput<'shell_close'>): Promise<MethodOutputs['shell_close']> {
    const shell = this.record(caller, input.shellId);
    const out = await this.link(shell.host).call<MethodOutputs['shell_close']>('shell_close', input, shell.nodeAs ?? undefined);
    this.shells.delete(input.shellId);
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
        this.shells.delete(id);
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
    return mine.map((s) => s.view);
  }

  closeLinks(): void {
    this.links.close();
  }
}
