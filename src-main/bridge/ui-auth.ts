import type http from 'node:http';
import { UI_AUTH_PROTOCOL_PREFIX } from '../common/ui-protocol';

/**
 * Where the browser UI's credentials ride (engine/people/sign-ins.ts keeps them): never a cookie. A cookie for
 * 127.0.0.1 is sent to every port of it, so a link to an agent's own local server carried it there; a bearer
 * header and a socket subprotocol are sent only by the page that holds the secret, in its own origin's storage.
 */

/** The session secret a UI socket offers as its `commonroom.auth.<secret>` subprotocol, or null. */
export function socketSecretOf(req: http.IncomingMessage): string | null {
  const header = req.headers['sec-websocket-protocol'];
  if (typeof header !== 'string' || header.length > 1024) return null;
  for (const part of header.split(',')) {
    const p = part.trim();
    if (p.startsWith(UI_AUTH_PROTOCOL_PREFIX)) return p.slice(UI_AUTH_PROTOCOL_PREFIX.length);
  }
  return null;
}
