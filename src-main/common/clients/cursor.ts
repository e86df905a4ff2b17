import { AGENT_SERVER_NAME, type ClientProfile } from './types';

/** Cursor reads its servers from ~/.cursor/mcp.json; the room does not start it. */
export const CURSOR = {
  id: 'cursor',
  label: 'Cursor',
  snippet: (url, token) => ({
    id: 'cursor',
    label: 'Cursor',
    where: '~/.cursor/mcp.json',
    text: JSON.stringify({ mcpServers: { [AGENT_SERVER_NAME]: { url, headers: { Authorization: `Bearer ${token}` } } } }, null, 2),
  }),
} as const satisfies ClientProfile;
