import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import { MAX_HOSTS, type HostView } from '../../common/methods/hosts';
import type { EngineContext, Feature } from '../room/index';
import { HostRepo, type HostRecord } from '../store/hosts';
import { checkHost } from './host-check';
import type { RemoteShells } from './remote-shells';
import { controlDirFor, type SshTarget } from './ssh';
import { sshAliases, sshConfigFile } from './ssh-config';

type HostMethods = 'host_list' | 'host_add' | 'host_check' | 'host_remove';

/**
 * The room's hosts: the person's SSH hosts by alias (read from their SSH configuration, nothing copied), the
 * allow-list of those agents may place work on, and each one's last check. It owns the hosts table. Only the
 * operator adds or checks a host (a host is the person's machine, reached with the person's keys); anyone with
 * operate may list them or take one away.
 */
export function hostsFeature(ctx: EngineContext, remote?: RemoteShells, env: NodeJS.ProcessEnv = process.env): Feature<HostMethods> {
  const repo = new HostRepo(ctx.room.db);
  const config = () => sshConfigFile(env);
  const target = (alias: string): SshTarget => ({ alias, config: config(), controlDir: controlDirFor(ctx.room.paths.configDir) });
  /** Checks running now, by alias: a second check of the same host waits for the first's answer. */
  const running = new Map<string, Promise<MethodOutputs['host_check']>>();

  const view = (record: HostRecord, aliases: readonly string[]): HostView => {
    const link = remote?.linkState(record.alias);
    const known = link && (link.state === 'connected' || link.state === 'unreachable');
    return { ...record, configured: aliases.includes(record.alias), ...(known ? { link: { reachable: link.state === 'connected', since: link.since, error: link.error } } : {}) };
  };

  function operatorOnly(caller: Caller, what: string): void {
    if (caller.role !== 'operator') {
      throw new RoomError('FORBIDDEN', `only the person at the desktop ${what} (a host is your machine, reached with your SSH keys): ask them to run "ce host ${what === 'adds a host' ? 'add' : 'check'}"`);
    }
  }

  function known(alias: string): HostRecord {
    const record = repo.byAlias(alias);
    if (!record) throw new RoomError('NOT_FOUND', `no host named "${alias}" in this room: see "ce host list" (add one with "ce host add ALIAS")`);
    return record;
  }

  function add(caller: Caller, input: MethodInput<'host_add'>): MethodOutputs['host_add'] {
    operatorOnly(caller, 'adds a host');
    const file = config();
    const aliases = sshAliases(file);
    const agents = input.agents ?? true;
    const existing = repo.byAlias(input.alias);
    if (existing) {
      if (existing.agents === agents) return { host: view(existing, aliases), changed: false };
      ctx.commit(() => {
        repo.setAgents(input.alias, agents);
        return { value: undefined, events: [{ kind: 'host.changed', actor: caller.name, subject: input.alias, data: { agents } }] };
      });
      return { host: view(known(input.alias), aliases), changed: true };
    }
    if (!aliases.includes(input.alias)) {
      const some = aliases.slice(0, 6).join(', ');
      throw new RoomError(
        'INVALID_INPUT',
        `"${input.alias}" is not a Host entry of ${file.path}: add "Host ${input.alias}" with its HostName and User there first${some ? ` (its hosts: ${some}${aliases.length > 6 ? ', …' : ''})` : ''}`,
      );
    }
    if (repo.count() >= MAX_HOSTS) throw new RoomError('LIMIT_EXCEEDED', `the room already has ${MAX_HOSTS} hosts: remove one first ("ce host remove ALIAS")`);
    ctx.commit(() => {
      repo.insert(input.alias, agents, ctx.now(), caller.name);
      return { value: undefined, events: [{ kind: 'host.added', actor: caller.name, subject: input.alias, data: { agents } }] };
    });
    return { host: view(known(input.alias), aliases), changed: true };
  }

  async function check(caller: Caller, input: MethodInput<'host_check'>): Promise<MethodOutputs['host_check']> {
    operatorOnly(caller, 'checks a host');
    known(input.alias);
    const pending = running.get(input.alias);
    if (pending) return pending;
    const work = (async () => {
      const result = await checkHost(target(input.alias), ctx.now, ctx.elapsedMs);
      if (!repo.byAlias(input.alias)) throw new RoomError('NOT_FOUND', `${input.alias} was removed while it was being checked`);
      ctx.commit(() => {
        repo.setCheck(input.alias, result);
        const data = { reachable: result.reachable, ready: result.ready, missing: result.missing.length, ...(result.error ? { error: result.error } : {}) };
        return { value: undefined, events: [{ kind: 'host.checked', actor: caller.name, subject: input.alias, data }] };
      });
      return { host: view(known(input.alias), sshAliases(config())), check: result };
    })();
    running.set(input.alias, work);
    try {
      return await work;
    } finally {
      running.delete(input.alias);
    }
  }

  function remove(caller: Caller, input: MethodInput<'host_remove'>): MethodOutputs['host_remove'] {
    if (!repo.byAlias(input.alias)) return { removed: false };
    ctx.commit(() => {
      repo.remove(input.alias);
      return { value: undefined, events: [{ kind: 'host.removed', actor: caller.name, subject: input.alias }] };
    });
    return { removed: true };
  }

  return {
    name: 'hosts',
    handlers: {
      host_list: () => {
        const file = config();
        const aliases = sshAliases(file);
        const hosts = repo.list().map((r) => view(r, aliases));
        return { hosts, available: aliases.filter((a) => !hosts.some((h) => h.alias === a)), sshConfig: file.path };
      },
      host_add: add,
      host_check: check,
      host_remove: remove,
    },
    close: () => remote?.closeLinks(),
  };
}
