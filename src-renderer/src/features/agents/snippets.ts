/**
 * Copy-ready configuration for the usual MCP clients, pointing at this room's endpoint with a token. The
 * token appears in these texts only while the screen shows it once; the person copies what fits.
 */
export interface Snippet {
  id: string;
  label: string;
  where: string;
  text: string;
}

const SERVER = 'commonroom';

export function connectSnippets(url: string, token: string): Snippet[] {
  const envVar = 'COMMONROOM_TOKEN';
  return [
    {
      id: 'claude-code',
      label: 'Claude Code',
      where: 'Run in a terminal',
      text: `claude mcp add --transport http ${SERVER} ${url} --header "Authorization: Bearer ${token}"`,
    },
    {
      id: 'claude-desktop',
      label: 'Claude Desktop',
      where: 'claude_desktop_config.json (Settings → Developer → Edit config)',
      text: JSON.stringify({ mcpServers: { [SERVER]: { command: 'npx', args: ['-y', 'mcp-remote', url, '--header', `Authorization: Bearer ${token}`] } } }, null, 2),
    },
    {
      id: 'cursor',
      label: 'Cursor',
      where: '~/.cursor/mcp.json',
      text: JSON.stringify({ mcpServers: { [SERVER]: { url, headers: { Authorization: `Bearer ${token}` } } } }, null, 2),
    },
    {
      id: 'codex',
      label: 'Codex',
      where: `~/.codex/config.toml, then export ${envVar}=${token}`,
      text: `[mcp_servers.${SERVER}]\nurl = "${url}"\nbearer_token_env_var = "${envVar}"\n\n# in your shell profile:\n# export ${envVar}="${token}"`,
    },
    {
      id: 'http',
      label: 'Generic HTTP',
      where: 'Any MCP client over Streamable HTTP',
      text: `URL:    ${url}\nHeader: Authorization: Bearer ${token}`,
    },
  ];
}
