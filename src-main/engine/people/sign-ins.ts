import { RoomError } from '../../common/errors';
import type { UiSessionView } from '../../common/methods/ui';
import { UI_PATH } from '../../common/ui-protocol';
import { hashToken, looksLikeToken, mintToken } from '../core/tokens';

/** Kept per room process: more sign-ins than this drop the one used longest ago that has no open socket. */
const MAX_SESSIONS = 64;
const MAX_LINKS = 64;

/** How long a link minted from the signed-in UI (another tab, a phone) may wait to be opened. */
export const SHORT_LINK_MS = 5 * 60_000;

/** What a sign-in link was made for: printed by serve or `ce ui-link`, or from the UI for another tab or a phone. */
export type LinkPurpose = 'link' | 'tab' | 'phone';

interface Link {
  /** Epoch ms after which it is refused, or null (the links serve and `ce ui-link` print keep until used). */
  expiresAt: number | null;
  purpose: LinkPurpose;
}

interface Session {
  id: string;
  purpose: LinkPurpose;
  hash: string;
  createdAt: string;
  lastSeenAt: string;
  userAgent: string;
  closers: Set<() => void>;
}

export type SignIn = { ok: true; secret: string; sessionId: string } | { ok: false; reason: 'used' | 'invalid' | 'expired' };

/**
 * The browser UI's sign-ins, in memory (they end with the room process, as the links printed for it do).
 *
 * A sign-in link carries a one-time token (256 random bits, kept as its hash). Its page trades it for a session
 * secret that the page keeps in its own sessionStorage (readable only by this origin: scheme, host and port)
 * and sends with its socket; nothing is ambient, so no cookie reaches another local port, and a link used once
 * is refused after. A session can be listed and revoked; revoking closes its sockets at once.
 */
export class BrowserSignIns {
  private base: URL | null = null;
  private readonly links = new Map<string, Link>();
  private readonly used = new Map<string, true>();
  private readonly sessions = new Map<string, Session>();
  private readonly byHash = new Map<string, Session>();

  constructor(private readonly now: () => string) {}

  /** The runner serves the browser UI at `base` (set once it listens; never in the desktop app). */
  serveAt(base: URL): void {
    this.base = base;
  }

  get served(): boolean {
    return this.base !== null;
  }

  /**
   * A new one-time sign-in link: /ui/#token=… (a fragment never reaches a server or a Referer). `ttlMs`: it is
   * refused once that long has passed unused (the links minted from the UI for another tab or a phone).
   */
  mintLink(options: { ttlMs?: number; purpose?: LinkPurpose } = {}): URL {
    if (!this.base) throw new RoomError('UNAVAILABLE', 'this room process serves no browser UI (the desktop app shows the room in its window; "commonroom serve" serves one)');
    const token = mintToken();
    if (this.links.size >= MAX_LINKS) this.links.delete(this.links.keys().next().value as string);
    const expiresAt = options.ttlMs === undefined ? null : Date.parse(this.now()) + options.ttlMs;
    this.links.set(hashToken(token), { expiresAt, purpose: options.purpose ?? 'link' });
    const url = new URL(UI_PATH, this.base);
    url.hash = `token=${token}`;
    return url;
  }

  signIn(linkToken: string, userAgent: string): SignIn {
    if (!looksLikeToken(linkToken)) return { ok: false, reason: 'invalid' };
    const hash = hashToken(linkToken);
    if (this.used.has(hash)) return { ok: false, reason: 'used' };
    const link = this.links.get(hash);
    if (!link) return { ok: false, reason: 'invalid' };
    this.links.delete(hash);
    this.used.set(hash, true);
    if (link.expiresAt !== null && Date.parse(this.now()) > link.expiresAt) return { ok: false, reason: 'expired' };
    if (this.used.size > MAX_LINKS * 4) this.used.delete(this.used.keys().next().value as string);
    if (this.sessions.size >= MAX_SESSIONS) this.dropIdlest();
    const secret = mintToken();
    const at = this.now();
    const session: Session = { id: `ui_${mintToken().slice(3, 19)}`, purpose: link.purpose, hash: hashToken(secret), createdAt: at, lastSeenAt: at, userAgent: userAgent.slice(0, 200), closers: new Set() };
    this.sessions.set(session.id, session);
    this.byHash.set(session.hash, session);
    return { ok: true, secret, sessionId: session.id };
  }

  /** The session a secret belongs to (its last use recorded), or null. */
  verify(secret: string | null | undefined): string | null {
    if (typeof secret !== 'string' || !looksLikeToken(secret)) return null;
    const session = this.byHash.get(hashToken(secret));
    if (!session) return null;
    session.lastSeenAt = this.now();
    return session.id;
  }

  /** A socket of `sessionId` opened: `close` ends it if the session is revoked. Returns the detach. */
  attach(sessionId: string, close: () => void): () => void {
    const session = this.sessions.get(sessionId);
    if (!session) {
      close();
      return () => undefined;
    }
    session.closers.add(close);
    return () => void session.closers.delete(close);
  }

  list(): UiSessionView[] {
    return [...this.sessions.values()].map((s) => ({ id: s.id, purpose: s.purpose, createdAt: s.createdAt, lastSeenAt: s.lastSeenAt, userAgent: s.userAgent, sockets: s.closers.size }));
  }

  revoke(sessionId: string): boolean {
    const session = this.sessions.get(sessionId);
    if (!session) return false;
    this.sessions.delete(sessionId);
    this.byHash.delete(session.hash);
    for (const close of [...session.closers]) close();
    return true;
  }

  /** Every session ends (the operator's token was rotated, or the room closes). */
  revokeAll(): number {
    const ids = [...this.sessions.keys()];
    for (const id of ids) this.revoke(id);
    return ids.length;
  }

  private dropIdlest(): void {
    const idle = [...this.sessions.values()].filter((s) => s.closers.size === 0).sort((a, b) => a.lastSeenAt.localeCompare(b.lastSeenAt))[0];
    if (!idle) throw new RoomError('LIMIT_EXCEEDED', `${MAX_SESSIONS} browser UI sessions are open: sign one out on the Agents screen ("ce ui-sessions")`);
    this.revoke(idle.id);
  }
}
