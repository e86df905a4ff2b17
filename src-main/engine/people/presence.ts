/**
 * Which participants are connected now and what each called last: volatile, in memory only (a call is never a
 * SQLite write), reported by the MCP door (sessions and listen streams opened and closed, each request's
 * method). Changes are announced through `changes` at most once per `throttleMs`, so a chatty agent costs the
 * UI one re-read per interval, never one per call.
 */
import type { ParticipantPresence, SessionView } from '../../common/methods/participants';
import { GrowthSignal } from '../core/growth-signal';

/** The key `changes` fires under. */
export const PRESENCE_CHANGED = 'presence';
/** Longest method text kept for a last call (a tool name, a JSON-RPC method). */
const MAX_CALL_TEXT = 80;

interface Session extends SessionView {
  close(): void;
}

/** What a door says of a 2025 session it opened: its id, its client, and how to close it. */
export interface SessionInfo {
  id: string;
  client: string | null;
  close(): void;
}

interface Entry {
  connections: number;
  sessions: Map<string, Session>;
  lastCallAt: string | null;
  lastCall: string | null;
  /** The last sign of it: a connection opened or closed, a request, a call. */
  lastSeenAt: string | null;
  /** When its last connection closed (null while one is open, or before any). */
  disconnectedAt: string | null;
}

export class Presence {
  readonly changes = new GrowthSignal();
  private readonly byName = new Map<string, Entry>();
  private timer: NodeJS.Timeout | null = null;
  private lastFiredMs = -Infinity;

  constructor(
    private readonly now: () => string,
    private readonly throttleMs = 500,
    private readonly monotonicMs: () => number = () => performance.now(),
  ) {}

  /**
   * A connection of `name` opened (a 2025 session, with what it is, or a listen stream). Returns its release,
   * safe to call twice.
   */
  connected(name: string, session?: SessionInfo): () => void {
    const opened = this.entry(name);
    opened.connections++;
    opened.lastSeenAt = this.now();
    opened.disconnectedAt = null;
    if (session) {
      const at = this.now();
      opened.sessions.set(session.id, { id: session.id, client: session.client, openedAt: at, lastUsedAt: at, close: session.close });
    }
    this.changed();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const entry = this.byName.get(name);
      if (entry) {
        entry.connections = Math.max(0, entry.connections - 1);
        if (session) entry.sessions.delete(session.id);
        entry.lastSeenAt = this.now();
        if (entry.connections === 0) entry.disconnectedAt = entry.lastSeenAt;
      }
      this.changed();
    };
  }

  /** A request of `name` on its session `id` (its last use). */
  used(name: string, id: string): void {
    const entry = this.byName.get(name);
    const session = entry?.sessions.get(id);
    if (session && entry) session.lastUsedAt = entry.lastSeenAt = this.now();
  }

  /** Closes a session of `name`; false when it has none by that id. */
  closeSession(name: string, id: string): boolean {
    const session = this.byName.get(name)?.sessions.get(id);
    if (!session) return false;
    session.close();
    return true;
  }

  /** `name` made a call (a tool's name, or the protocol method). */
  called(name: string, what: string): void {
    const entry = this.entry(name);
    entry.lastCall = what.slice(0, MAX_CALL_TEXT);
    entry.lastCallAt = entry.lastSeenAt = this.now();
    this.changed();
  }

  /** What is known of `name` (nothing yet: not connected, no call since this runner started). */
  of(name: string): ParticipantPresence {
    const entry = this.byName.get(name);
    const sessions = [...(entry?.sessions.values() ?? [])].map(({ id, client, openedAt, lastUsedAt }) => ({ id, client, openedAt, lastUsedAt }));
    const connections = entry?.connections ?? 0;
    return {
      name,
      connections,
      streams: Math.max(0, connections - sessions.length),
      sessions,
      lastCall: entry?.lastCall ?? null,
      lastCallAt: entry?.lastCallAt ?? null,
      lastSeenAt: entry?.lastSeenAt ?? null,
      disconnectedAt: entry?.disconnectedAt ?? null,
    };
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private entry(name: string): Entry {
    let entry = this.byName.get(name);
    if (!entry) this.byName.set(name, (entry = { connections: 0, sessions: new Map(), lastCall: null, lastCallAt: null, lastSeenAt: null, disconnectedAt: null }));
    return entry;
  }

  /** Announces a change: at once when the last announcement is older than the throttle, else once at its end. */
  private changed(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastFiredMs + this.throttleMs - this.monotonicMs());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.lastFiredMs = this.monotonicMs();
      this.changes.fire(PRESENCE_CHANGED);
    }, wait);
    this.timer.unref();
  }
}
