// Real MCP SDK clients of both eras, authenticated with a bearer token, as an agent would connect.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';

const auth = (token) => ({ requestInit: { headers: { Authorization: `Bearer ${token}` } } });

// The 2025 SDK's transport hands every request the same AbortSignal (its own, for close); Node's fetch adds an
// abort listener to it per request and removes it only when that request is collected, so a client making
// thousands of calls crosses the signal's listener limit (1,500) and Node prints a "possible memory leak"
// warning with a stack trace for every call after that — in the bench process, timed with the client. Not a
// leak (the collector frees them): lift the limit on that signal.
const fetchWithoutLimit = (input, init) => {
  if (init?.signal) setMaxListeners(0, init.signal);
  return globalThis.fetch(input, init);
};

/**
 * A fetch with a connection pool of its own (an undici Agent), as an agent's process has. The room counts a socket
 * as held by the last participant whose request it carried; with this process's one pool a socket served
 * whichever participant asked next, and on a loaded machine one participant's 8 clients came to be the last on
 * 32 sockets of the pool (the 2025 rounds leave up to 64 there) and were refused: its share is 32.
 */
function pooledFetch() {
  const dispatcher = new Agent();
  return (input, init) => fetchWithoutLimit(input, { ...init, dispatcher });
}

/**
 * era "2025": the 2025 SDK (@modelcontextprotocol/sdk, initialize + session); "2026": the v2 client, negotiated to
 * 2026-07-28. `fetch`: the connection pool it uses (this process's by default).
 */
export async function connect(era, url, token, name = 'bench', fetch = undefined) {
  if (era === '2025') {
    const client = new ClientV1({ name, version: '1' });
    const transport = new TransportV1(url, { ...auth(token), fetch: fetch ?? fetchWithoutLimit });
    await client.connect(transport);
    // a 2025 session lives on in the server until it is ended (DELETE) or idles out: end it on close
    client.endSession = () => transport.terminateSession();
    return client;
  }
  const client = new ClientV2({ name, version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new TransportV2(url, fetch ? { ...auth(token), fetch } : auth(token)));
  return client;
}

/**
 * `n` clients; given several tokens, client i uses tokens[floor(i / perToken)]. 8 a participant by default: the
 * room lets a participant hold 32 connections, and a 2025 client holds two while it calls (its standalone GET
 * stream and the POST of its call), so 16 of them sat at the cap and were refused. Each participant's clients
 * share a connection pool of their own (`pooledFetch`).
 */
export async function connectMany(era, url, tokens, n, perToken = 8) {
  const list = Array.isArray(tokens) ? tokens : [tokens];
  const pools = list.map(() => pooledFetch());
  const clients = [];
  // a few at a time: 32 handshakes at once on a loaded 2-core machine only measure the handshake
  for (let i = 0; i < n; i += 8) {
    const batch = Array.from({ length: Math.min(8, n - i) }, (_, j) => {
      const at = Math.floor((i + j) / perToken) % list.length;
      return connect(era, url, list[at], `bench-${i + j}`, pools[at]);
    });
    clients.push(...(await Promise.all(batch)));
  }
  return clients;
}

export const closeAll = (clients) =>
  Promise.all(
    clients.map(async (c) => {
      await c.endSession?.().catch(() => {});
      await c.close().catch(() => {});
    }),
  );

/** Calls a tool and returns its structured result; a tool error throws with its text. */
export async function callTool(client, name, args = {}) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${r.content?.map((c) => c.text).join(' ')}`);
  if (r.structuredContent) return r.structuredContent;
  const text = r.content?.find((c) => c.type === 'text')?.text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * One handoff cycle as the `handoff-cycle` benchmark times it: the operator creates a handoff to the agent,
 * the agent accepts and completes it, the operator approves it (four tool calls, four commits).
 */
export async function handoffCycle(operator, agent) {
  const { handoff } = await callTool(operator, 'handoff_create', { summary: 'benchmark cycle', to: 'agent' });
  await callTool(agent, 'handoff_accept', { handoffId: handoff.id });
  await callTool(agent, 'handoff_complete', { handoffId: handoff.id, result: 'done' });
  await callTool(operator, 'handoff_approve', { handoffId: handoff.id });
}

/** `count` no-op calls on the bare server, one after another: the baseline of a handoff cycle is four. */
export async function noops(base, count = 4, tool = 'noop') {
  for (let i = 0; i < count; i++) await callTool(base, tool, {});
}

/** Every client calls `tool` in a loop for `ms`: calls/s and each call's latency (ms), as `mcp-call` times them. */
export async function callLoop(clients, tool, args, ms) {
  const latencies = [];
  const started = performance.now();
  const deadline = started + ms;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await callTool(client, tool, args);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { rate: latencies.length / ((performance.now() - started) / 1000), calls: latencies.length, latencies };
}
