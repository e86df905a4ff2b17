/**
 * The browser UI's sign-in, page side (the room side: src-main/engine/ui-sessions.ts). A sign-in link carries a
 * one-time token in its fragment; the page takes it out of the address bar and history at once, trades it for
 * a session secret (POST /ui/session, the token as a bearer token), and keeps the secret in sessionStorage,
 * which only this origin (scheme, host and port) can read. The secret rides on the socket as a subprotocol;
 * nothing is a cookie, so no request to another local port ever carries it. A reload keeps the tab signed in.
 */
import { UI_AUTH_PROTOCOL_PREFIX, UI_SECRET_KEY, UI_SESSION_PATH, UI_SOCKET_PROTOCOL } from '../../../src-main/common/ui-protocol';

export const NEW_LINK_HINT = 'Get a new sign-in link with "ce ui-link" (or open the one "commonroom serve" printed when it started).';

/** When this tab signed in (ms since the epoch), and why it was signed out: kept so a reload still says why. */
export const SIGNED_IN_AT_KEY = 'commonroom.signedInAt';
export const SIGNED_OUT_KEY = 'commonroom.signedOut';

/** Why a sign-in ended, in words: a room that restarted since the tab signed in, else a revoked sign-in. */
export function signedOutReason(signedInAt: number | null, roomStartedAt: string | null): string {
  const started = roomStartedAt ? Date.parse(roomStartedAt) : NaN;
  if (Number.isFinite(started) && (signedInAt === null || started > signedInAt)) {
    return `The room restarted (at ${new Date(started).toLocaleTimeString()}), which ends every browser sign-in. ${NEW_LINK_HINT}`;
  }
  if (Number.isFinite(started)) return `Signed out: this sign-in was revoked (in Agents, or with ce). ${NEW_LINK_HINT}`;
  return `Signed out: the room restarted, or this sign-in was revoked. ${NEW_LINK_HINT}`;
}

/** The link's one-time token, taken out of the address (and so out of history) before anything else runs. */
export function takeLinkToken(location: Pick<Location, 'hash' | 'pathname' | 'search'>, history: Pick<History, 'replaceState'>): string | null {
  const hash = new URLSearchParams(location.hash.replace(/^#/, ''));
  const token = hash.get('token');
  if (token === null) return null;
  hash.delete('token');
  const rest = hash.toString();
  history.replaceState(null, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
  return token;
}

export interface SignInStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

type Fetch = (url: string, init: { method: string; headers: Record<string, string> }) => Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>;

/** The page's sign-in: what the socket offers, and why it was refused when it was. */
export class UiSignIn {
  constructor(
    private readonly store: SignInStore | null,
    private readonly linkToken: string | null,
    private readonly fetcher: Fetch = (url, init) => fetch(url, init),
  ) {}

  /** Before the first connection: trades a link token for a session. Answers a problem to show, or null. */
  async prepare(): Promise<string | null> {
    if (this.store === null) return 'This browser keeps no session storage for this page, so it cannot stay signed in. Allow site data for it, then open a new sign-in link.';
    if (this.linkToken === null) return this.store.getItem(UI_SECRET_KEY) ? null : (this.store.getItem(SIGNED_OUT_KEY) ?? `Not signed in to this room. ${NEW_LINK_HINT}`);
    let answer: { ok: boolean; status: number; json(): Promise<unknown> };
    try {
      answer = await this.fetcher(UI_SESSION_PATH, { method: 'POST', headers: { Authorization: `Bearer ${this.linkToken}` } });
    } catch {
      return null; // the room is not reachable: the socket's reconnecting says so
    }
    const body = (await answer.json().catch(() => ({}))) as { secret?: string; error?: { reason?: string } };
    if (answer.ok && typeof body.secret === 'string') {
      this.store.setItem(UI_SECRET_KEY, body.secret);
      this.store.setItem(SIGNED_IN_AT_KEY, String(Date.now()));
      this.store.removeItem(SIGNED_OUT_KEY);
      return null;
    }
    // a used link in a tab that is already signed in (a reload of the link) keeps its session
    if (this.store.getItem(UI_SECRET_KEY)) return null;
    return body.error?.reason === 'used'
      ? `This sign-in link was already used: a link signs in once, in the tab that opened it. ${NEW_LINK_HINT}`
      : `This sign-in link is not valid for this room process (links end when it restarts). ${NEW_LINK_HINT}`;
  }

  /** The socket's subprotocols: the UI's own, and the secret. */
  protocols(): string[] {
    const secret = this.store?.getItem(UI_SECRET_KEY);
    return secret ? [UI_SOCKET_PROTOCOL, `${UI_AUTH_PROTOCOL_PREFIX}${secret}`] : [UI_SOCKET_PROTOCOL];
  }

  /** The socket was refused or closed: a problem when the sign-in no longer holds, null when the room is just away. */
  async diagnose(): Promise<string | null> {
    const secret = this.store?.getItem(UI_SECRET_KEY);
    if (!secret) return `Not signed in to this room. ${NEW_LINK_HINT}`;
    let startedAt: string | null = null;
    try {
      const answer = await this.fetcher(UI_SESSION_PATH, { method: 'GET', headers: { Authorization: `Bearer ${secret}` } });
      if (answer.status !== 401) return null;
      const body = (await answer.json().catch(() => ({}))) as { error?: { startedAt?: unknown } };
      startedAt = typeof body.error?.startedAt === 'string' ? body.error.startedAt : null;
    } catch {
      return null;
    }
    const at = Number(this.store?.getItem(SIGNED_IN_AT_KEY) ?? NaN);
    const reason = signedOutReason(Number.isFinite(at) ? at : null, startedAt);
    this.store?.removeItem(UI_SECRET_KEY);
    this.store?.setItem(SIGNED_OUT_KEY, reason);
    return reason;
  }
}

/** sessionStorage, or null where the browser refuses it (storage blocked for the site). */
export function sessionStore(): SignInStore | null {
  try {
    const store = window.sessionStorage;
    store.getItem(UI_SECRET_KEY);
    return store;
  } catch {
    return null;
  }
}
