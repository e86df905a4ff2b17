import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import type { Capability } from '../../src-main/common/capabilities';
import { CONTRACT, METHOD_NAMES } from '../../src-main/common/contract';
import { PROTOCOL_CAPABILITIES } from '../../src-main/mcp/surface/method-capabilities';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome, type TestHome } from '../helpers/env';

let home: TestHome;
let running: RunningRoom;
const tokens = new Map<Capability, string>();
const SINGLE: Capability[] = ['read', 'write', 'approve', 'operate'];

type Reply = { status: number; text: string };

async function post(token: string, body: Record<string, unknown>, headers: Record<string, string> = {}, stream = false): Promise<Reply> {
  const controller = new AbortController();
  const res = await fetch(running.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
    signal: controller.signal,
  });
  if (stream && res.status === 200) {
    // an accepted listen stays open: its first event is enough
    const reader = res.body!.getReader();
    const first = await reader.read();
    controller.abort();
    return { status: res.status, text: new TextDecoder().decode(first.value) };
  }
  return { status: res.status, text: await res.text() };
}

/** A 2025 session: initialize, then requests carrying its session id. */
async function legacySession(token: string) {
  const init = await fetch(running.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'caps', version: '1' } } }),
  });
  await init.text();
  const session = init.headers.get('mcp-session-id') ?? '';
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await post(token, { method: 'notifications/initialized' }, headers);
  let id = 1;
  return (method: string, params: Record<string, unknown>) => post(token, { id: id++, method, params }, headers);
}

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};
function modern(token: string, method: string, params: Record<string, unknown>, name?: string) {
  const headers: Record<string, string> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method };
  if (name !== undefined) headers['mcp-name'] = name;
  return post(token, { id: 1, method, params: { ...params, _meta: ENVELOPE } }, headers, method === 'subscriptions/listen');
}

let markdown: string;
const TASK = 't-made-up';
const LEGACY: Record<string, Record<string, unknown>> = {};
const MODERN: Record<string, [Record<string, unknown>, string?]> = {};

beforeAll(async () => {
  home = makeHome();
  running = await startRunner({ port: 0, paths: home.paths });
  const op = running.engine.operator();
  for (const cap of SINGLE) tokens.set(cap, (await running.engine.call(op, 'participant_add', { name: `only-${cap}`, capabilities: [cap] })).token);
  markdown = pathToFileURL(running.engine.room.location.markdownPath).toString();
  Object.assign(LEGACY, {
    'resources/list': {},
    'resources/templates/list': {},
    'resources/read': { uri: markdown },
    'resources/subscribe': { uri: markdown },
    'resources/unsubscribe': { uri: markdown },
    'tasks/get': { taskId: TASK },
    'tasks/list': {},
    'tasks/result': { taskId: TASK },
    'tasks/cancel': { taskId: TASK },
  });
  Object.assign(MODERN, {
    'resources/list': [{}],
    'resources/templates/list': [{}],
    'resources/read': [{ uri: markdown }, markdown],
    // 2026 has no resources/subscribe: subscriptions/listen carries resource subscriptions
    'tasks/get': [{ taskId: TASK }, TASK],
    'tasks/cancel': [{ taskId: TASK }, TASK],
    'tasks/update': [{ taskId: TASK, inputResponses: { k: { action: 'accept' } } }, TASK],
    'subscriptions/listen': [{ notifications: { resourceSubscriptions: [markdown] } }],
  });
});
afterAll(async () => {
  await running.close();
  home.cleanup();
});

const refusedFor = (need: string) => new RegExp(`needs the \\\\?"${need}\\\\?" capability`);

describe('every MCP method checks its capability (one table, both eras)', () => {
  it('the table covers every protocol method the eras serve', () => {
    const served = new Set([...Object.keys(LEGACY), ...Object.keys(MODERN)]);
    for (const [method, need] of Object.entries(PROTOCOL_CAPABILITIES)) if (need !== null) expect(served, method).toContain(method);
  });

  it.each(SINGLE)('2025 era, a participant with only %s', async (cap) => {
    const call = await legacySession(tokens.get(cap)!);
    for (const [method, params] of Object.entries(LEGACY)) {
      const need = PROTOCOL_CAPABILITIES[method] as Capability;
      const reply = await call(method, params);
      if (need === cap) expect(reply.text, method).not.toMatch(/needs the/);
      else expect(reply.text, method).toMatch(refusedFor(need));
    }
  });

  it.each(SINGLE)('2026 era, a participant with only %s', async (cap) => {
    for (const [method, [params, name]] of Object.entries(MODERN)) {
      const need = PROTOCOL_CAPABILITIES[method] as Capability;
      const reply = await modern(tokens.get(cap)!, method, params, name);
      if (need === cap) expect(reply.text, method).not.toMatch(/needs the/);
      else expect(reply.text, method).toMatch(refusedFor(need));
    }
  });

  it.each(SINGLE)('tools/call on both eras, a participant with only %s: only the tools of its capability run', async (cap) => {
    const call = await legacySession(tokens.get(cap)!);
    for (const tool of METHOD_NAMES.filter((m) => CONTRACT[m].mcpTool)) {
      const args = { __probe: true }; // unknown key: refused by validation, so nothing runs even when allowed
      const replies = [await call('tools/call', { name: tool, arguments: args }), await modern(tokens.get(cap)!, 'tools/call', { name: tool, arguments: args }, tool)];
      for (const reply of replies) {
        if (CONTRACT[tool].capability === cap) expect(reply.text, tool).toMatch(/INVALID_INPUT/);
        else expect(reply.text, tool).toMatch(/unknown tool|needs the/);
      }
    }
  });
});
