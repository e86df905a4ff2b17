import { AGENT_ENV, AGENT_SERVER_NAME, CLIENTS, type Snippet } from './clients/index';

/**
 * Copy-ready configuration for the usual MCP clients, pointing at a room's endpoint with a participant's token.
 * One source for every place that shows them: the app's Agents screen, `ce participant add`, the serve banner
 * (with a placeholder), and docs/agents.md (the README shows the Claude Code one). The token is always an
 * agent's own (`ce participant add NAME --can read,write`), never the operator's: an agent holding the
 * operator token could approve its own work.
 */
export type { Snippet } from './clients/index';

/** The name the server gets in each client's configuration. */
export const SNIPPET_SERVER_NAME = AGENT_SERVER_NAME;
/** The environment variable clients that read a token from the environment are told to use. */
export const TOKEN_ENV_VAR = AGENT_ENV.token;

/** Each client's snippet (clients/<id>.ts), in the index's order. */
export function connectSnippets(url: string, token: string): Snippet[] {
  return CLIENTS.flatMap((c) => ('snippet' in c ? [c.snippet(url, token)] : []));
}

/** What to tell a person whose client opens a browser sign-in (OAuth) when it connects. */
export const OAUTH_401_HINT =
  'A client that opens a browser sign-in (OAuth) when it connects got 401: its token is missing, mistyped or revoked. ' +
  'Commonroom has no OAuth; fix the Authorization header (a new token: ce participant add NAME --can read,write) and restart the client.';

/** Why a web chat cannot be pointed at the room. */
export const WEB_CLIENT_NOTE =
  'ChatGPT on the web (and any other cloud-hosted client) runs on its company\'s servers and cannot reach 127.0.0.1 on your machine; use a local client.';
