import os from 'node:os';
import path from 'node:path';
import { parseCapabilities } from '../../common/capabilities';
import type { ParticipantView } from '../../common/dto';
import { UsageError } from '../args';
import { print, type CeCommand } from '../command';
import { callAsOperator, readAs } from '../room-client';
import { connectSnippets, OAUTH_401_HINT, WEB_CLIENT_NOTE } from '../../common/connect-snippets';
import { findRunningRoom } from '../../engine/index';
import { LIMITS } from '../../common/limits';
import { parsePort } from '../../common/port';

/** A folder as the person typed it, made absolute where they typed it (`~` is their home). */
function absolute(given: string): string {
  const expanded = given === '~' ? os.homedir() : given.startsWith('~/') ? path.join(os.homedir(), given.slice(2)) : given;
  return path.resolve(expanded);
}

function foldersText(name: string, folders: string[]): string {
  const usual = 'its working folder, temp folders and tool caches';
  if (folders.length === 0) return `${name} writes only ${usual}`;
  return [`${name} writes ${usual}, and:`, ...folders.map((f) => `  ${f}`)].join('\n');
}

function participantLine(p: ParticipantView): string {
  const state = p.revokedAt ? `revoked ${p.revokedAt}` : 'active';
  return `${p.name.padEnd(24)} ${p.role.padEnd(9)} ${p.capabilities.join(',').padEnd(26)} ${state}`;
}

/** The endpoint agents connect to: the running room process's, else where `commonroom serve` listens by default. */
function mcpUrlOf(room: string | undefined): { url: string; running: boolean } {
  const running = findRunningRoom(room);
  if (running) return { url: new URL('/mcp', running.endpoint).toString(), running: true };
  // not server/runner's portFromEnv: importing the server would load the whole MCP door into every ce command
  const port = parsePort(process.env.COMMONROOM_PORT ?? '') ?? LIMITS.defaultPort;
  return { url: `http://127.0.0.1:${port}/mcp`, running: false };
}

function addedText(p: ParticipantView, token: string, endpoint: { url: string; running: boolean }): string {
  const lines = [`added ${p.name} (${p.capabilities.join(',')})`, `token (shown once, store it now): ${token}`, ''];
  if (!endpoint.running) lines.push(`(no room process serves this room now: the snippets assume "commonroom serve" on ${endpoint.url})`);
  for (const s of connectSnippets(endpoint.url, token)) lines.push(`${s.label} — ${s.where}:`, ...s.text.split('\n').map((l) => `  ${l}`), '');
  lines.push(OAUTH_401_HINT);
  return lines.join('\n');
}

export const PARTICIPANT_COMMANDS: CeCommand[] = [
  {
    name: 'participant',
    synopsis: ['ce participant add NAME --can read,write[,approve,operate]', 'ce participant list', 'ce participant rotate NAME', 'ce participant revoke NAME', 'ce participant close-session NAME SESSION', 'ce participant folders NAME [--add PATH | --remove PATH]'],
    summary: "add an agent (its own token, printed once), list participants, or revoke one's token",
    options: {
      can: { type: 'string', value: 'CAPS', help: 'what it may do, comma-separated: read, write, approve, operate' },
      add: { type: 'string', value: 'PATH', help: 'folders: let the agent write this folder too (absolute, existing)' },
      remove: { type: 'string', value: 'PATH', help: 'folders: take a folder back' },
    },
    details: [
      'Give each agent its own token with only what it needs: read,write lets it open shells, run graphs and hand',
      'work over, but not approve results (approve) nor act on everyone\'s graphs (operate). Never give an agent',
      'the operator token: it could approve its own work.',
      '',
      'It prints the token once, with a snippet for each client (Claude Code, Claude Desktop, Cursor, Codex and',
      'any Streamable HTTP client) filled in with the endpoint and that token.',
      '',
      'rotate gives a participant a new token (printed once) under the same name: the old one stops working at',
      'once and its requests in flight end. "ce participant rotate operator" rewrites the operator token file and',
      'signs every browser UI session out. A revoked name can be added again; what it did before stays its own.',
      '',
      'list shows, while a room process runs, each participant\'s open MCP sessions (the client that opened it, when,',
      'when last used); close-session closes one (its client gets "session not found" and starts a new one).',
      '',
      'folders lists the folders an agent\'s shells and graph stages may write besides their working folder, temp',
      'folders and tool caches (the sandbox keeps the rest of the file system read-only); --add lets it write one',
      'more (the operator only), --remove takes one back. A folder is absolute and exists; /, your home folder',
      'itself, Commonroom\'s config and data folders and a room\'s state folder are refused. Shells and stages',
      'the agent starts from then on get the change.',
      WEB_CLIENT_NOTE,
      OAUTH_401_HINT,
    ],
    examples: ['ce participant add claude --can read,write', 'ce participant list', 'ce participant rotate claude', 'ce participant revoke claude', 'ce participant folders claude --add ~/projects/site'],
    async run(args, room) {
      const [, sub, name, ...extra] = args.positional;
      if (extra.length > (sub === 'close-session' ? 1 : 0)) throw new UsageError(`unexpected argument ${JSON.stringify(extra[sub === 'close-session' ? 1 : 0])}`);
      switch (sub) {
        case 'add': {
          if (!name) throw new UsageError('ce participant add NAME --can read,write: NAME is missing');
          const can = typeof args.flags.can === 'string' ? args.flags.can : undefined;
          if (!can) throw new UsageError('ce participant add NAME --can read,write: say what it may do with --can');
          const created = await callAsOperator(room, 'participant_add', { name, capabilities: parseCapabilities(can) });
          print(args, created, () => addedText(created.participant, created.token, mcpUrlOf(room)));
          return 0;
        }
        case 'list': {
          if (name) throw new UsageError(`unexpected argument ${JSON.stringify(name)}`);
          const { participants } = await readAs(room, 'participant_list', {});
          // who is connected is known only to a running room process
          const activity = findRunningRoom(room) ? (await readAs(room, 'participant_activity', {})).participants : [];
          const sessionsOf = new Map(activity.map((a) => [a.name, a.sessions]));
          print(args, { participants, activity }, () =>
            participants
              .flatMap((p) => [
                participantLine(p),
                ...(sessionsOf.get(p.name) ?? []).map((s) => `    session ${s.id}  ${s.client ?? 'unnamed client'}  opened ${s.openedAt}  last used ${s.lastUsedAt}`),
              ])
              .join('\n'),
          );
          return 0;
        }
        case 'close-session': {
          const [, , who, sessionId] = args.positional;
          if (!who || !sessionId) throw new UsageError('ce participant close-session NAME SESSION: name the participant and the session (see "ce participant list")');
          const out = await callAsOperator(room, 'participant_session_close', { name: who, sessionId });
          print(args, out, () => `closed ${who}'s session ${sessionId} (its client starts a new one when it comes back)`);
          return 0;
        }
        case 'folders': {
          if (!name) throw new UsageError('ce participant folders NAME [--add PATH | --remove PATH]: NAME is missing');
          const add = typeof args.flags.add === 'string' ? args.flags.add : undefined;
          const remove = typeof args.flags.remove === 'string' ? args.flags.remove : undefined;
          if (add !== undefined && remove !== undefined) throw new UsageError('ce participant folders NAME: give --add or --remove, not both');
          if (add === undefined && remove === undefined) {
            // a read: served from the room file too while no room process runs
            const who = (await readAs(room, 'participant_list', {})).participants.find((p) => p.name === name);
            if (!who) throw new UsageError(`no participant named "${name}": see "ce participant list"`);
            print(args, { participant: who, folders: who.writableFolders }, () => foldersText(who.name, who.writableFolders));
            return 0;
          }
          // a path as typed (~ and relative ones made absolute here, where the person's shell and folder are)
          const out = await callAsOperator(room, 'participant_folders', { name, ...(add !== undefined ? { add: absolute(add) } : { remove: absolute(remove as string) }) });
          const what = add !== undefined ? (out.changed ? `${name} may now write ${out.folders.at(-1) ?? add}` : `${name} could already write ${add}`) : `${name} no longer writes ${remove ?? ''}`;
          print(args, out, () => `${what}\n${foldersText(name, out.folders)}`);
          return 0;
        }
        case 'revoke': {
          if (!name) throw new UsageError('ce participant revoke NAME: NAME is missing');
          const out = await callAsOperator(room, 'participant_revoke', { name });
          print(args, out, () => (out.changed ? `revoked ${name}` : `${name} was already revoked (${out.participant.revokedAt ?? ''})`));
          return 0;
        }
        case 'rotate': {
          if (!name) throw new UsageError('ce participant rotate NAME: NAME is missing');
          const rotated = await callAsOperator(room, 'participant_rotate', { name });
          print(args, rotated, () =>
            rotated.participant.role === 'operator'
              ? `the operator has a new token, written to its token file; the old one, and every browser sign-in, stopped working`
              : addedText(rotated.participant, rotated.token, mcpUrlOf(room)).replace(/^added /, 'new token for ').concat(`\n(the old token stopped working; its requests in flight ended)`),
          );
          return 0;
        }
        default:
          throw new UsageError(`ce participant ${sub ?? ''}: use add, list, rotate, revoke, close-session or folders`);
      }
    },
  },
];
