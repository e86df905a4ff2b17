import type { HostCheck, HostView } from '../../common/methods/hosts';
import { UsageError } from '../args';
import { print, type CeCommand } from '../command';
import { callAsOperator, readAs } from '../room-client';

/** A check in lines: what it found, then each thing missing with how to install it. */
export function checkLines(alias: string, check: HostCheck): string[] {
  if (!check.reachable) return [`${alias}: not reachable (checked ${check.at})`, `  ${check.error ?? 'no answer'}`];
  const lines = [`${alias}: ${check.ready ? 'ready' : 'reachable, not ready'} — ${check.os ?? '?'} ${check.arch ?? '?'} (checked ${check.at}, ${check.tookMs} ms)`];
  for (const t of check.tools) lines.push(`  ${t.name.padEnd(12)} ${t.path ? `${t.path}${t.version ? `  ${t.version}` : ''}` : 'not found'}`);
  if (check.missing.length > 0) lines.push('', 'missing:', ...check.missing.map((m) => `  - ${m}`));
  if (check.path) lines.push('', `login PATH: ${check.path}`);
  return lines;
}

function hostLine(h: HostView): string {
  const check = h.lastCheck ? (h.lastCheck.reachable ? (h.lastCheck.ready ? 'ready' : `not ready (${h.lastCheck.missing.length} missing)`) : 'not reachable') : 'not checked';
  const agents = h.agents ? 'agents may use it' : 'the person only';
  const gone = h.configured ? '' : '  (no longer in your SSH configuration)';
  // the room's link to it, when it is down: its shells and stages go on there, unknown here until it is back
  const away = h.link?.reachable === false ? `  (unreachable since ${h.link.since}: its work is unknown here until it is back)` : '';
  return `${h.alias.padEnd(24)} ${agents.padEnd(18)} ${check}${h.lastCheck ? ` at ${h.lastCheck.at}` : ''}${gone}${away}`;
}

export const HOST_COMMANDS: CeCommand[] = [
  {
    name: 'host',
    synopsis: ['ce host list', 'ce host add ALIAS [--person-only]', 'ce host check ALIAS', 'ce host remove ALIAS'],
    summary: 'the machines work may run on: your SSH hosts, by their alias in ~/.ssh/config',
    options: {
      'person-only': { type: 'boolean', help: 'add: agents may not place work on it (only you may)' },
    },
    details: [
      'A host is an alias of your SSH configuration (a "Host devbox" entry of ~/.ssh/config, or of the file',
      'COMMONROOM_SSH_CONFIG names): the room keeps the alias only, and ssh reads your configuration, keys and',
      'ssh-agent each time it connects. It never types a password nor accepts a new host key for you: connect',
      'once with "ssh ALIAS" first.',
      '',
      'add puts a host on the room\'s list (the operator only); agents may place work on it unless --person-only.',
      'list shows the room\'s hosts with their last check, and the aliases of your SSH configuration not added.',
      'check connects (one shared connection, kept open a while) and looks on the host\'s login PATH for what',
      'work there needs — Node 20.19+, git, Commonroom itself, each agent CLI — and says how to install what is',
      'missing. remove takes a host off the list; nothing on the host is touched.',
      'Exit codes: check exits 0 when the host is ready, 1 when it is not or cannot be reached.',
    ],
    examples: ['ce host list', 'ce host add devbox', 'ce host check devbox', 'ce host remove devbox'],
    async run(args, room) {
      const [, sub, alias, ...extra] = args.positional;
      if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
      switch (sub) {
        case 'list':
        case undefined: {
          if (alias) throw new UsageError(`unexpected argument ${JSON.stringify(alias)}`);
          const out = await readAs(room, 'host_list', {});
          print(args, out, () => {
            const lines = out.hosts.length > 0 ? out.hosts.map(hostLine) : ['no hosts yet: add one of your SSH hosts with "ce host add ALIAS"'];
            if (out.available.length > 0) lines.push('', `in ${out.sshConfig}, not added: ${out.available.join(', ')}`);
            else if (out.hosts.length === 0) lines.push(`(${out.sshConfig} names no host: add a "Host NAME" entry there first)`);
            return lines.join('\n');
          });
          return 0;
        }
        case 'add': {
          if (!alias) throw new UsageError('ce host add ALIAS: name one of your SSH hosts (see "ce host list")');
          const out = await callAsOperator(room, 'host_add', { alias, agents: args.flags['person-only'] !== true });
          print(args, out, () =>
            `${out.changed ? 'added' : 'already there:'} ${hostLine(out.host)}\ncheck it with "ce host check ${alias}"`);
          return 0;
        }
        case 'check': {
          if (!alias) throw new UsageError('ce host check ALIAS: name a host of the room (see "ce host list")');
          const out = await callAsOperator(room, 'host_check', { alias });
          print(args, out, () => checkLines(alias, out.check).join('\n'));
          return out.check.ready ? 0 : 1;
        }
        case 'remove': {
          if (!alias) throw new UsageError('ce host remove ALIAS: name a host of the room (see "ce host list")');
          const out = await callAsOperator(room, 'host_remove', { alias });
          print(args, out, () => (out.removed ? `removed ${alias}: no new work is placed on it` : `${alias} was not a host of this room`));
          return 0;
        }
        default:
          throw new UsageError(`ce host ${sub}: use list, add, check or remove`);
      }
    },
  },
];
