import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UI_PATH, UI_SESSION_PATH } from '../common/ui-protocol';
import type { DoorEngine } from '../engine/index';
import { sendJson, wantsHtml } from '../net/http-json';
import { bearerToken } from '../net/bearer';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.map': 'application/json; charset=utf-8',
};

/** The browser UI's Content-Security-Policy: own scripts only, no eval, sockets only back to this server. */
export function uiContentSecurityPolicy(host: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'", // xterm.js positions and themes through inline styles
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ws://${host}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The built renderer (out/renderer) of the package this file belongs to, found by walking up to package.json. */
export function defaultRendererDir(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (let i = 0; i < 8; i++) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'out', 'renderer');
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return path.join(from, '..', 'renderer');
}

const SECURITY = { 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY', 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Resource-Policy': 'same-origin' };
const NEW_LINK = 'get a new sign-in link with "ce ui-link" (or open the one "commonroom serve" printed when it started)';

/**
 * The browser UI. Its files are the public bundle (no secret in them), served to anyone on this origin; what
 * a page may do is decided by its sign-in (engine/people/sign-ins.ts): POST /ui/session with the one-time link
 * token as a bearer token answers a session secret, which the page keeps in its own sessionStorage and offers
 * on its socket. GET /ui/session with the secret says whether it still holds (so a page can say "signed out").
 */
export class UiStatic {
  private readonly root: string;
  private readonly startedAt = new Date().toISOString();

  constructor(
    private readonly engine: DoorEngine,
    rendererDir: string,
  ) {
    this.root = path.resolve(rendererDir);
  }

  handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === UI_SESSION_PATH) return this.session(req, res);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendJson(res, 405, { error: { code: 'INVALID_INPUT', message: 'the UI answers GET only' } }, { Allow: 'GET, HEAD' });
    }
    if (url.searchParams.has('token')) {
      // a link of the old form: its token goes to the fragment, where the page takes it (it never reaches a server again)
      res.writeHead(303, { Location: `${UI_PATH}#token=${encodeURIComponent(url.searchParams.get('token') ?? '')}`, 'Cache-Control': 'no-store', ...SECURITY });
      res.end();
      return;
    }
    if (url.pathname === '/ui') {
      res.writeHead(308, { Location: UI_PATH, ...SECURITY });
      res.end();
      return;
    }
    if (!fs.existsSync(path.join(this.root, 'index.html'))) {
      return sendJson(res, 503, { error: { code: 'UNAVAILABLE', message: `the UI is not built (${this.root} is missing): run "npm run build"` } }, SECURITY);
    }
    const file = this.resolve(url.pathname.slice(UI_PATH.length));
    if (!file) return sendJson(res, 404, { error: { code: 'NOT_FOUND', message: `no such UI file ${url.pathname}` } }, SECURITY);
    const body = fs.readFileSync(file);
    const isHtml = file.endsWith('.html');
    res.writeHead(200, {
      'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': String(body.length),
      'Content-Security-Policy': uiContentSecurityPolicy(req.headers.host ?? ''),
      'X-Content-Type-Options': 'nosniff',
      // hashed asset names never change; the page itself is read fresh
      'Cache-Control': isHtml ? 'no-store' : 'private, max-age=31536000, immutable',
      ...SECURITY,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  /** The sign-in: POST trades a one-time link token for a session secret; GET checks a secret. */
  private session(req: http.IncomingMessage, res: http.ServerResponse): void {
    const headers = { ...SECURITY, 'Cache-Control': 'no-store' };
    // the page's own check sends no text/html; a person who opens this address gets the UI instead of JSON
    if (wantsHtml(req)) {
      res.writeHead(303, { Location: UI_PATH, ...headers });
      res.end();
      return;
    }
    const bearer = bearerToken(req);
    const sessions = this.engine.uiSessions;
    if (req.method === 'POST') {
      req.resume();
      const signIn = bearer === null ? ({ ok: false, reason: 'invalid' } as const) : sessions.signIn(bearer, String(req.headers['user-agent'] ?? ''));
      if (signIn.ok) return sendJson(res, 200, { sessionId: signIn.sessionId, secret: signIn.secret }, headers);
      const message =
        signIn.reason === 'used'
          ? `this sign-in link was already used (a link signs in once, in the tab that opened it): ${NEW_LINK}`
          : signIn.reason === 'expired'
            ? `this sign-in link expired (a link made in the UI for another tab or a phone works for 5 minutes): ${NEW_LINK}`
            : `this sign-in link is not valid for this room process (links end when it restarts): ${NEW_LINK}`;
      return sendJson(res, 401, { error: { code: 'UNAUTHENTICATED', message, reason: signIn.reason } }, headers);
    }
    if (req.method === 'GET') {
      const sessionId = sessions.verify(bearer);
      if (sessionId) return sendJson(res, 200, { sessionId }, headers);
      // when this process started: a page signed in before then was signed in to a process that has since ended
      return sendJson(res, 401, { error: { code: 'UNAUTHENTICATED', message: `signed out: the room process restarted or this sign-in was revoked; ${NEW_LINK}`, startedAt: this.startedAt } }, headers);
    }
    return sendJson(res, 405, { error: { code: 'INVALID_INPUT', message: 'POST to sign in, GET to check a sign-in' } }, { ...headers, Allow: 'GET, POST' });
  }

  /** A file inside the renderer folder, or index.html for an app route; null for anything else. */
  private resolve(relative: string): string | null {
    let decoded: string;
    try {
      decoded = decodeURIComponent(relative);
    } catch {
      return null;
    }
    if (decoded.includes('\0') || decoded.split(/[\\/]/).some((part) => part === '..')) return null;
    const root = fs.realpathSync(this.root);
    const candidate = path.resolve(root, decoded === '' ? 'index.html' : decoded);
    if (!candidate.startsWith(root + path.sep)) return null;
    try {
      const real = fs.realpathSync(candidate);
      if (!real.startsWith(root + path.sep) || !fs.statSync(real).isFile()) return null;
      return real;
    } catch {
      // a route of the single-page app (no extension) is the app itself
      return path.extname(decoded) === '' ? path.join(root, 'index.html') : null;
    }
  }
}
