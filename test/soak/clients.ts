import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** A tool-calling MCP client of either era: the 2025 SDK (v1) or the 2026 client (v2), both real. */
export interface ToolClient {
  era: 'legacy' | 'modern';
  call<T>(name: string, args: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

interface RawClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }, schema?: unknown, options?: { timeout?: number }): Promise<unknown>;
  close(): Promise<void>;
}

export async function connectClient(url: string | URL, token: string, era: 'legacy' | 'modern', name = `soak-${era}`): Promise<ToolClient> {
  const headers = { Authorization: `Bearer ${token}` };
  let raw: RawClient;
  if (era === 'modern') {
    const c = new ClientV2({ name, version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await c.connect(new TransportV2(new URL(url), { requestInit: { headers } }));
    raw = c as unknown as RawClient;
  } else {
    const c = new ClientV1({ name, version: '1' });
    await c.connect(new TransportV1(new URL(url), { requestInit: { headers } }));
    raw = c as unknown as RawClient;
  }
  return {
    era,
    async call<T>(tool: string, args: Record<string, unknown>): Promise<T> {
      const result = (await raw.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 })) as { isError?: boolean; content: { text: string }[]; structuredContent: T };
      if (result.isError) throw new ToolRefusal(result.content[0]?.text ?? 'tool error');
      return result.structuredContent;
    },
    close: () => raw.close().catch(() => undefined),
  };
}

/** A clear refusal from the runner (isError result), as opposed to a transport failure. */
export class ToolRefusal extends Error {}

/** The operator's REST door of `commonroom serve` (/api/<method>), as graph-kill.test.ts uses it. */
export async function api<T>(mcpUrl: string, token: string, method: string, input: unknown): Promise<T> {
  const res = await fetch(new URL(`/api/${method}`, mcpUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(60_000),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (!res.ok || body.result === undefined) throw new Error(`${method}: ${body.error?.message ?? res.status}`);
  return body.result;
}
