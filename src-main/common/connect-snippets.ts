/**
 * Copy-ready configuration for the usual MCP clients, pointing at a room's endpoint with a participant's token.
 * One source for every place that shows them: the app's Agents screen, `ce participant add`, the serve banner
 * (with a placeholder), and docs/agents.md (the README shows the Claude Code one). The token is always an
 * agent's own (`ce participant add NAME --can read,write`), never the operator's: an agent holding the
 * operator token could approve its own work.
 */
export interface Snippet {
  id: string;
  label: string;
  where: string;
  text: string;
}

/** The name the server gets in each client's configuration. */
export const SNIPPET_SERVER_NAME = 'commonroom';
/** The environment variable clients that read a token from the environment are told to use. */
export const TOKEN_ENV_VAR = 'COMMONROOM_TOKEN';

export function connectSnippets(url: string, token: string): Snippet[] {
  const server = SNIPPET_SERVER_NAME;
  const envVar = TOKEN_ENV_VAR;
  return [
    {
      id: 'claude-code',
      label: 'Claude Code',
      where: 'Run in a terminal (--scope user: in every folder; without it, Claude Code adds it for the current folder only)',
      text: `claude mcp add --transport http --scope user ${server} ${url} --header "Authorization: Bearer ${token}"`,
    },
    {
      id: 'gemini-cli',
      label: 'Gemini CLI',
      where: 'Run in a terminal (--scope user: in every folder); Gemini CLI connects only in folders you trust (it asks when it starts in one)',
      text: `gemini mcp add --transport http --scope user ${server} ${url} --header "Authorization: Bearer ${token}"`,
    },
    {
      id: 'opencode',
      label: 'opencode',
      where: 'Run in a terminal (it writes ~/.config/opencode/opencode.jsonc)',
      text: `opencode mcp add ${server} --url ${url} --header "Authorization=Bearer ${token}"`,
    },
    {
      id: 'claude-desktop',
      label: 'Claude Desktop',
      where: 'claude_desktop_config.json (Settings → Developer → Edit config), then restart Claude Desktop; it reaches HTTP servers through mcp-remote (needs Node)',
      text: JSON.stringify(
        { mcpServers: { [server]: { command: 'npx', args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${COMMONROOM_AUTH}'], env: { COMMONROOM_AUTH: `Bearer ${token}` } } } },
        null,
        2,
      ),
    },
    {
      id: 'cursor',
      label: 'Cursor',
      where: '~/.cursor/mcp.json',
      text: JSON.stringify({ mcpServers: { [server]: { url, headers: { Authorization: `Bearer ${token}` } } } }, null, 2),
    },
    {
      id: 'codex',
      label: 'Codex',
      where: `~/.codex/config.toml, then export ${envVar}=${token}`,
      text: `[mcp_servers.${server}]\nurl = "${url}"\nbearer_token_env_var = "${envVar}"\n\n# in your shell profile:\n# export ${envVar}="${token}"`,
    },
    {
      id: 'http',
      label: 'Generic HTTP',
      where: 'Any MCP client over Streamable HTTP',
      text: `URL:    ${url}\nHeader: Authorization: Bearer ${token}`,
    },
  ];
}

/** What to tell a person whose client opens a browser sign-in (OAuth) when it connects. */
export const OAUTH_401_HINT =
  'A client that opens a browser sign-in (OAuth) when it connects got 401: its token is missing, mistyped or revoked. ' +
  'Commonroom has no OAuth; fix the Authorization header (a new token: ce participant add NAME --can read,write) and restart the client.';

/** Why a web chat cannot be pointed at the room. */
export const WEB_CLIENT_NOTE =
  'ChatGPT on the web (and any other cloud-hosted client) runs on its company\'s servers and cannot reach 127.0.0.1 on your machine; use a local client.';
