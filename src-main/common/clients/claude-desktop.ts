import { AGENT_SERVER_NAME, type ClientProfile } from './types';

/** Claude Desktop reaches HTTP servers through mcp-remote (a stdio bridge); the room does not start it. */
export const CLAUDE_DESKTOP = {
  id: 'claude-desktop',
  label: 'Claude Desktop',
  snippet: (url, token) => ({
    id: 'claude-desktop',
    label: 'Claude Desktop',
    where: 'claude_desktop_config.json (Settings → Developer → Edit config), then restart Claude Desktop; it reaches HTTP servers through mcp-remote (needs Node)',
    text: JSON.stringify(
      { mcpServers: { [AGENT_SERVER_NAME]: { command: 'npx', args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${COMMONROOM_AUTH}'], env: { COMMONROOM_AUTH: `Bearer ${token}` } } } },
      null,
      2,
    ),
  }),
} as const satisfies ClientProfile;
