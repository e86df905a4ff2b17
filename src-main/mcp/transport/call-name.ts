/**
 * What an MCP request body calls, for the participants' presence ("last call"): a tool's name for tools/call,
 * else the JSON-RPC method. Responses and notifications are not calls (null). Reads the body only; a batch
 * (2025-03-26) counts by its last request.
 */
export function callNameOf(body: unknown): string | null {
  if (Array.isArray(body)) {
    for (let i = body.length - 1; i >= 0; i--) {
      const name = callNameOf(body[i]);
      if (name) return name;
    }
    return null;
  }
  if (body === null || typeof body !== 'object') return null;
  const { method, params, id } = body as { method?: unknown; params?: { name?: unknown }; id?: unknown };
  if (typeof method !== 'string' || id === undefined || method.startsWith('notifications/')) return null;
  if (method === 'tools/call' && typeof params?.name === 'string') return params.name;
  return method;
}
