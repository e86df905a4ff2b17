import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome, type TestHome } from '../helpers/env';
import { BASH, sleep } from '../engine/shells/helpers';

let home: TestHome;
let running: RunningRoom;
let n = 0;

const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/** One raw 2026 tools/call; resolves with the JSON-RPC answer. */
async function modernCall(token: string, name: string, args: Record<string, unknown>) {
  const res = await fetch(running.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: envelope } }),
  });
  const text = await res.text();
  const line = text.startsWith('{') ? text : (text.split('\n').find((l) => l.startsWith('data: '))?.slice(6) ?? '{}');
  return JSON.parse(line) as { result?: { isError?: boolean; content?: { text: string }[]; structuredContent?: unknown }; error?: { message: string } };
}

async function agent(capabilities: ('read' | 'write')[] = ['read', 'write']) {
  const name = `agent-${++n}`;
  const { token } = await running.engine.call(running.engine.operator(), 'participant_add', { name, capabilities });
  return { name, token };
}

const revoke = (name: string) => running.engine.call(running.engine.operator(), 'participant_revoke', { name });

beforeAll(async () => {
  home = makeHome();
  running = await startRunner({ port: 0, paths: home.paths });
});
afterAll(async () => {
  await running.close();
  home.cleanup();
});

describe('revoking a participant ends its requests already in flight', () => {
  it('2026: a long shell_io wait ends at once with an error saying the participant was revoked', async () => {
    const a = await agent();
    const opened = await modernCall(a.token, 'shell_open', BASH);
    const shellId = (opened.result?.structuredContent as { shell: { id: string } }).shell.id;
    const waiting = modernCall(a.token, 'shell_io', { shellId, wait: { until: 'match', pattern: 'after-revoke', timeoutMs: 40_000 } });
    await sleep(300);
    await revoke(a.name);
    // output the wait was looking for, produced after the revocation: it must never be answered
    await running.engine.call(running.engine.operator(), 'shell_io', { shellId, text: 'echo after-revoke\n' }).catch(() => undefined);
    const answer = await waiting;
    expect(JSON.stringify(answer)).toMatch(/revoked/);
    expect(JSON.stringify(answer)).not.toContain('after-revoke\\r\\n');
    expect(answer.result?.isError ?? answer.error !== undefined).toBe(true);
  }, 15_000);

  it('2026: tasks_status with waitMs ends at once', async () => {
    const a = await agent();
    const run = await modernCall(a.token, 'tasks_run', { stages: [{ id: 's', command: ['sleep', '30'] }] });
    const graphId = (run.result?.structuredContent as { graphId: string }).graphId;
    const waiting = modernCall(a.token, 'tasks_status', { graphId, waitMs: 24_000 });
    await sleep(300);
    await revoke(a.name);
    const answer = await waiting;
    expect(JSON.stringify(answer)).toMatch(/revoked/);
    await running.engine.call(running.engine.operator(), 'tasks_cancel', { graphId }).catch(() => undefined);
  }, 15_000);

  it('2025: a long shell_io wait on a session ends at once', async () => {
    const a = await agent();
    const client = new Client({ name: 'legacy', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${a.token}` } } }));
    const opened = (await client.callTool({ name: 'shell_open', arguments: BASH })) as { structuredContent: { shell: { id: string } } };
    const shellId = opened.structuredContent.shell.id;
    const waiting = client
      .callTool({ name: 'shell_io', arguments: { shellId, wait: { until: 'match', pattern: 'after-revoke', timeoutMs: 40_000 } } }, { timeout: 120_000 })
      .then((r) => JSON.stringify(r), (e: Error) => `rejected: ${e.message}`);
    await sleep(300);
    await revoke(a.name);
    await running.engine.call(running.engine.operator(), 'shell_io', { shellId, text: 'echo after-revoke\n' }).catch(() => undefined);
    const answer = await waiting;
    expect(answer).not.toContain('after-revoke\\r\\n');
    expect(answer).toMatch(/revoked|rejected/);
    await client.close().catch(() => undefined);
  }, 15_000);

  it('2025 session (negotiated as 2025-11-25): the call in flight is answered "revoked" before the session ends', async () => {
    const a = await agent();
    const client = new Client({ name: 'legacy-2025', version: '1' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${a.token}` } } }));
    expect(client.getNegotiatedProtocolVersion?.() ?? '2025').toMatch(/^2025/);
    const opened = (await client.callTool({ name: 'shell_open', arguments: BASH })) as { structuredContent: { shell: { id: string } } };
    const shellId = opened.structuredContent.shell.id;
    const started = Date.now();
    // the client would wait 30 s for an answer that never comes if the stream closed unanswered
    const waiting = client
      .callTool({ name: 'shell_io', arguments: { shellId, wait: { until: 'match', pattern: 'never-printed', timeoutMs: 40_000 } } }, { timeout: 30_000 })
      .then((r) => JSON.stringify(r), (e: Error) => `rejected: ${e.message}`);
    await sleep(300);
    await revoke(a.name);
    const answer = await waiting;
    expect(answer).toMatch(/revoked/);
    expect(answer).not.toMatch(/^rejected/);
    expect(Date.now() - started).toBeLessThan(10_000);
    await client.close().catch(() => undefined);
  }, 20_000);

  it('a revoked participant can call nothing more through the engine', async () => {
    const a = await agent();
    const caller = running.engine.authenticate(a.token);
    expect(caller).not.toBeNull();
    await revoke(a.name);
    await expect(running.engine.call(caller!, 'room_info', {})).rejects.toThrow(/revoked/);
  });
});
