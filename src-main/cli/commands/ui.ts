import type { UiSessionView } from '../../common/methods/ui';
import { UsageError } from '../args';
import { print, type CeCommand } from '../command';
import { EXIT } from '../exit-codes';
import { callAsOperator } from '../room-client';
import { findRunningRoom } from '../../engine/index';

function sessionLine(s: UiSessionView): string {
  return `${s.id.padEnd(20)} since ${s.createdAt}   last used ${s.lastSeenAt}   ${String(s.sockets).padStart(2)} open   ${s.userAgent}`;
}

/** The browser UI belongs to a running `commonroom serve`: without one there is nothing to sign in to. */
function requireServed(room: string | undefined): boolean {
  if (findRunningRoom(room)) return true;
  process.stderr.write('ce: no room process serves this room: start "commonroom serve" (it prints a sign-in link)\n');
  return false;
}

export const UI_COMMANDS: CeCommand[] = [
  {
    name: 'ui-link',
    synopsis: ['ce ui-link'],
    summary: 'a new one-time sign-in link for the browser UI of the running "commonroom serve"',
    details: [
      'The link signs in the browser tab that opens it, as the operator, once: a second use is refused. The tab',
      'keeps its sign-in in its own storage (no cookie, so no other local port ever receives it) until the room',
      'process stops or the sign-in is revoked ("ce ui-sessions --revoke ID"). Keep the link private.',
    ],
    examples: ['ce ui-link'],
    async run(args, room) {
      const [, ...extra] = args.positional;
      if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
      if (!requireServed(room)) return EXIT.refused;
      const link = await callAsOperator(room, 'ui_link_create', {});
      print(args, link, () => `${link.url}\n(one-time: it signs in the first browser tab that opens it)`);
      return 0;
    },
  },
  {
    name: 'ui-sessions',
    synopsis: ['ce ui-sessions', 'ce ui-sessions --revoke ID'],
    summary: 'the browser UI sign-ins of the running room process; --revoke signs one out at once',
    options: { revoke: { type: 'string', value: 'ID', help: 'sign this session out: its tabs disconnect and must sign in again' } },
    examples: ['ce ui-sessions', 'ce ui-sessions --revoke ui_3f9c…'],
    async run(args, room) {
      const [, ...extra] = args.positional;
      if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
      if (!requireServed(room)) return EXIT.refused;
      const revoke = typeof args.flags.revoke === 'string' ? args.flags.revoke : undefined;
      if (revoke !== undefined) {
        const out = await callAsOperator(room, 'ui_session_revoke', { sessionId: revoke });
        print(args, out, () => `signed out ${revoke}`);
        return 0;
      }
      const out = await callAsOperator(room, 'ui_session_list', {});
      print(args, out, () => (out.sessions.length === 0 ? 'no browser UI sessions (open a sign-in link: "ce ui-link")' : out.sessions.map(sessionLine).join('\n')));
      return 0;
    },
  },
];
