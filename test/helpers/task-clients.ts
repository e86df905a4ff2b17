import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, type RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';

/**
 * Real task clients for the tests: the official ext-tasks requester over the v2 SDK Client, on the 2025 era
 * (initialize, sessions, tasks/result) and on 2026-07-28 (per-request envelope, tasks/get|update|cancel).
 * Every request carries the participant's bearer token.
 */
const CLIENT_CAPS = { elicitation: { form: {} } };
type OnInput = Parameters<typeof createTaskSessionFromClient>[1]['onInputRequest'];

export async function legacyTaskSession(url: URL, token: string, onInputRequest?: OnInput) {
  const client = new Client({ name: 'tasks-2025', version: '1' }, { capabilities: CLIENT_CAPS, versionNegotiation: { mode: 'legacy' } });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const session = createTaskSessionFromClient(client, { endpointId: 'legacy', ...(onInputRequest ? { onInputRequest } : {}) });
  return { client, session, close: async () => (await session.close(), await client.close()) };
}

const NAME_FIELD: Record<string, string> = { 'tools/call': 'name', 'resources/read': 'uri', 'tasks/get': 'taskId', 'tasks/update': 'taskId', 'tasks/cancel': 'taskId' };

export async function modernTaskSession(url: URL, token: string, onInputRequest?: OnInput) {
  const info = { name: 'tasks-2026', version: '1' };
  const client = new Client(info, { capabilities: CLIENT_CAPS, versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  let nextId = 1;
  // ext-tasks sends tools/call and tasks/* itself: the SDK Client's 2026 codec would refuse resultType "task"
  const rawDispatch: RawClientDispatch = async (request, options) => {
    const req = request as { method: string; params?: Record<string, unknown> & { _meta?: Record<string, unknown> } };
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': String(req.params?._meta?.['io.modelcontextprotocol/protocolVersion'] ?? ''),
      'mcp-method': req.method,
    });
    const field = NAME_FIELD[req.method];
    if (field && typeof req.params?.[field] === 'string') headers.set('mcp-name', req.params[field] as string);
    for (const [k, v] of Object.entries(options?.context?.headers ?? {})) headers.set(k, v);
    const message = { jsonrpc: '2.0', id: `raw-${nextId++}`, ...req };
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(message), ...(options?.signal ? { signal: options.signal } : {}) });
    const text = await res.text();
    let reply: { result?: unknown; error?: { code: number; message: string; data?: unknown } } | undefined;
    if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      for (const line of text.split('\n')) {
        if (!line.startsWith('data: ')) continue;
        const m = JSON.parse(line.slice(6)) as { id?: string };
        if (m.id === message.id) reply = m as typeof reply;
      }
    } else reply = JSON.parse(text) as typeof reply;
    if (reply?.error) return { kind: 'error', error: reply.error } as Awaited<ReturnType<RawClientDispatch>>;
    if (reply && 'result' in reply) return { kind: 'result', result: reply.result } as Awaited<ReturnType<RawClientDispatch>>;
    throw new Error(`no JSON-RPC reply (HTTP ${res.status}): ${text.slice(0, 200)}`);
  };
  const session = createTaskSessionFromClient(client, {
    endpointId: 'modern',
    rawDispatch,
    v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo: info, clientCapabilities: CLIENT_CAPS },
    ...(onInputRequest ? { onInputRequest } : {}),
  });
  return { client, session, close: async () => (await session.close(), await client.close()) };
}
