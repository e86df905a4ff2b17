import type { ParticipantPresence } from '../../../../src-main/common/methods/participants';
import { agoText } from '../../app/time-range';

/** A 2025 session unused this long reads idle, not connected: the client may well have gone without saying so. */
export const SESSION_IDLE_MS = 5 * 60_000;

/**
 * Where a participant is, in words: connected (a listen stream, or a session used lately), idle (a session
 * still open, unused for a while), or gone: "left 26 min ago" (its last connection closed), "seen 3 h ago"
 * (its last call, for a client that holds no connection). Short words: the column is narrow. `connected` is the dot.
 */
export function presenceText(p: ParticipantPresence | undefined, revoked: boolean, now: number = Date.now()): { text: string; connected: boolean; title: string } {
  if (revoked) return { text: 'not connected (revoked)', connected: false, title: 'its token was revoked' };
  if (!p) return { text: 'not seen yet', connected: false, title: 'no connection or call since the room started' };
  const seen = p.lastSeenAt ? `seen ${agoText(p.lastSeenAt, now)}` : '';
  const title = p.lastSeenAt ? `last seen ${p.lastSeenAt}` : 'no call since the room started';
  const freshSession = p.sessions.some((s) => now - Date.parse(s.lastUsedAt) < SESSION_IDLE_MS);
  if (p.streams > 0 || freshSession) {
    return { text: p.connections > 1 ? `connected · ${p.connections}` : 'connected', connected: true, title };
  }
  if (p.connections > 0) return { text: seen ? `idle · ${seen}` : 'idle', connected: false, title: `${title}: its session is open but unused for over ${SESSION_IDLE_MS / 60_000} minutes` };
  if (p.disconnectedAt) return { text: `left ${agoText(p.disconnectedAt, now)}`, connected: false, title: `disconnected: its last connection closed at ${p.disconnectedAt}` };
  // a 2026 client holds no connection between calls: its last call is its last sign
  if (p.lastSeenAt) return { text: seen, connected: false, title: `not connected (it holds no connection between calls): ${title}` };
  return { text: 'not connected', connected: false, title };
}
