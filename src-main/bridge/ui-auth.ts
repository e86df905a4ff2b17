import type http from 'node:http';
import { hashToken, looksLikeToken, mintToken, sameHash } from '../engine/index';
import { UI_COOKIE, UI_PATH } from '../common/ui-protocol';

/**
 * The browser UI's credential. A token of its own (256 random bits, minted at every start of the room process
 * and kept only as its hash), not the operator token: it is printed in a URL, so it must be worth no more than
 * the UI and die with the process. Opening the token URL moves it into an HttpOnly, SameSite=Strict cookie.
 *
 * The cookie's name carries the port: browsers share cookies between ports of one host, so two rooms served
 * on 127.0.0.1 at once would otherwise overwrite each other's.
 */
export class UiAuth {
  private readonly hash: string;
  /** The token itself: only for the banner's URL (never logged elsewhere, never on disk). */
  readonly token: string;

  constructor(token: string = mintToken()) {
    this.token = token;
    this.hash = hashToken(token);
  }

  cookieName(port: number): string {
    return `${UI_COOKIE}_${port}`;
  }

  verify(candidate: string | null | undefined): boolean {
    if (typeof candidate !== 'string' || !looksLikeToken(candidate)) return false;
    return sameHash(hashToken(candidate), this.hash);
  }

  /** Whether the request carries this room's UI cookie. */
  hasCookie(req: http.IncomingMessage, port: number): boolean {
    return this.verify(readCookie(req.headers.cookie, this.cookieName(port)));
  }

  /** The Set-Cookie value that signs a browser in (a session cookie: it ends with the browser). */
  setCookie(port: number): string {
    return `${this.cookieName(port)}=${this.token}; Path=/ui; HttpOnly; SameSite=Strict`;
  }

  /** The URL the banner prints: the UI with the token, which the first request trades for the cookie. */
  tokenUrl(base: URL): URL {
    const url = new URL(UI_PATH, base);
    url.searchParams.set('token', this.token);
    return url;
  }
}

/** One cookie's value from a Cookie header (the last one wins, as a second Set-Cookie would). */
export function readCookie(header: string | undefined, name: string): string | null {
  if (typeof header !== 'string' || header.length > 8192) return null;
  let found: string | null = null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) found = part.slice(eq + 1).trim();
  }
  return found;
}
