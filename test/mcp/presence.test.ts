/**
 * Participants' presence through the MCP door, with real SDK clients: a 2025 session counts as connected from
 * initialize until it is closed (DELETE) or its participant is revoked; every request's tool or method is its
 * last call; the UI door hears a hint when presence changes. And the engine's throttle: a burst of calls is
 * one announcement per interval, never one per call.
 */
import http from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServerMessage } from '../../src-main/common/ui-protocol';
import { UiSession } from '../../src-main/bridge/ui-session';
import { Presence, PRESENCE_CHANGED } from '../../src-main/engine/people/presence';
import type { RunningRoom } from '../../src-main/server/runner';
import { startTestRunner, type TestRunner } from '../helpers/runner';

let runner: TestRunner;
let running: RunningRoom;

beforeAll(async () => {
  runner = await startTestRunner();
  ({ running } = runner);
});
afterAll(() => runner?.close());

const operator = () => running.engine.operator();
async function presenceOf(name: string) {
  const { participants } = await running.engine.call(operator(), 'participant_activity', {});
  return participants.find((p) => p.name === name);
}

async function connect(name: string, mode: 'legacy' | 'auto'): Promise<{ client: Client; transport: StreamableHTTPClientTransport; token: string }> {
  const added = await running.engine.call(operator(), 'participant_add', { name, capabilities: ['read', 'write'] });
  const client = new Client({ name, version: '1' }, { versionNegotiation: { mode } });
  const transport = new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${added.token}` } } });
  await client.connect(transport);
  return { client, transport, token: added.token };
}

describe('presence through the MCP door', () => {
  it('a 2025 session is connected from initialize until the client closes it, and its last call is its tool', async () => {
    const hints: ServerMessage[] = [];
    const ui = new UiSession(running.engine, (m) => m.t === 'presence.changed' && hints.push(m), { mcpUrl: running.mcpUrl.toString() });
    ui.open();
    expect(await presenceOf('session-agent')).toBeUndefined();
    const { client, transport } = await connect('session-agent', 'legacy');
    expect(await presenceOf('session-agent')).toMatchObject({ connections: 1, lastCall: 'initialize' });
    await client.callTool({ name: 'shell_list', arguments: {} });
    const seen = await presenceOf('session-agent');
    expect(seen).toMatchObject({ connections: 1, lastCall: 'shell_list' });
    expect(Date.parse(seen?.lastCallAt ?? '')).not.toBeNaN();
    await vi.waitFor(() => expect(hints.length).toBeGreaterThan(0));

    await transport.terminateSession();
    await client.close();
    await vi.waitFor(async () => expect((await presenceOf('session-agent'))?.connections).toBe(0));
    // the last call outlives the connection, and it says when it left
    const left = await presenceOf('session-agent');
    expect(left).toMatchObject({ lastCall: 'shell_list', streams: 0 });
    expect(Date.parse(left?.disconnectedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(seen?.lastCallAt ?? ''));
    expect(left?.lastSeenAt).toBe(left?.disconnectedAt);
    ui.close();
  });

  it('a client that goes away without closing its sessions (its process exited) reads not connected once its connections drop, and connected again when it comes back', async () => {
    const first = await connect('gone-agent', 'legacy');
    await first.client.callTool({ name: 'shell_list', arguments: {} });
    // its GET stream is open (the SDK opens it after initialize), as a running client's is
    await vi.waitFor(async () => expect((await presenceOf('gone-agent'))?.connections).toBe(1));
    const sessionId = first.transport.sessionId;
    expect(sessionId).toBeTruthy();
    await first.client.close(); // no DELETE: its connections just drop
    await vi.waitFor(async () => expect(await presenceOf('gone-agent')).toMatchObject({ connections: 0, sessions: [] }), { timeout: 10_000 });
    expect(Date.parse((await presenceOf('gone-agent'))?.disconnectedAt ?? '')).not.toBeNaN();
    // its session was not ended by that: the client resumes its stream, and reads connected again
    const abort = new AbortController();
    const stream = await fetch(running.mcpUrl, { headers: { Authorization: `Bearer ${first.token}`, Accept: 'text/event-stream', 'Mcp-Session-Id': sessionId ?? '', 'Mcp-Protocol-Version': '2025-06-18' }, signal: abort.signal });
    expect(stream.status).toBe(200);
    await vi.waitFor(async () => expect(await presenceOf('gone-agent')).toMatchObject({ connections: 1, sessions: [{ id: sessionId }] }));
    abort.abort();
    await vi.waitFor(async () => expect((await presenceOf('gone-agent'))?.connections).toBe(0), { timeout: 10_000 });
  });

  it('a client that exits before it ever opens its GET stream (opencode under load, or one that only POSTs) reads not connected once its connections close', async () => {
    const added = await running.engine.call(operator(), 'participant_add', { name: 'quick-agent', capabilities: ['read', 'write'] });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const post = (body: object, sid?: string) =>
      new Promise<{ status: number; sid: string | undefined }>((resolve, reject) => {
        const data = JSON.stringify(body);
        const headers = { Authorization: `Bearer ${added.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(data), ...(sid ? { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' } : {}) };
        const req = http.request(running.mcpUrl, { method: 'POST', agent, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, sid: res.headers['mcp-session-id'] as string | undefined }));
        });
        req.on('error', reject);
        req.end(data);
      });
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'quick', version: '1' } } });
    expect(init.status).toBe(200);
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, init.sid);
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, init.sid)).status).toBe(200);
    // while its connection is open it reads connected, between calls too
    expect(await presenceOf('quick-agent')).toMatchObject({ connections: 1, sessions: [{ id: init.sid }] });
    agent.destroy(); // its process exited: the connection closes; no DELETE, and no GET stream ever opened
    await vi.waitFor(async () => expect(await presenceOf('quick-agent')).toMatchObject({ connections: 0, sessions: [] }), { timeout: 5_000 });
  });

  it('revoking a participant ends its sessions: it reads not connected at once', async () => {
    const { client } = await connect('revoked-agent', 'legacy');
    expect((await presenceOf('revoked-agent'))?.connections).toBe(1);
    await running.engine.call(operator(), 'participant_revoke', { name: 'revoked-agent' });
    await vi.waitFor(async () => expect((await presenceOf('revoked-agent'))?.connections).toBe(0));
    await client.close().catch(() => undefined);
  });

  it('a 2026 client holds no connection between calls, but its calls are its last call', async () => {
    const { client } = await connect('stateless-agent', 'auto');
    await client.callTool({ name: 'handoff_list', arguments: {} });
    expect(await presenceOf('stateless-agent')).toMatchObject({ connections: 0, lastCall: 'handoff_list' });
    await client.close();
  });

  it('participant_activity is the operator’s: an agent may not read it', async () => {
    const agent = running.engine.participantAs(operator(), 'stateless-agent');
    await expect(running.engine.call(agent, 'participant_activity', {})).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('presence over time', () => {
  it('says when a participant was last seen and when its last connection closed', () => {
    let clock = Date.parse('2026-01-01T10:00:00Z');
    const at = () => new Date(clock).toISOString();
    const presence = new Presence(at, 500, () => clock);
    expect(presence.of('a')).toMatchObject({ connections: 0, streams: 0, lastSeenAt: null, disconnectedAt: null });
    const stream = presence.connected('a');
    const session = presence.connected('a', { id: 's1', client: 'claude-code', close: () => undefined });
    expect(presence.of('a')).toMatchObject({ connections: 2, streams: 1, lastSeenAt: at(), disconnectedAt: null });
    clock += 60_000;
    presence.used('a', 's1');
    expect(presence.of('a').lastSeenAt).toBe(at());
    expect(presence.of('a').sessions[0]?.lastUsedAt).toBe(at());
    clock += 60_000;
    stream();
    expect(presence.of('a')).toMatchObject({ connections: 1, streams: 0, disconnectedAt: null });
    clock += 26 * 60_000;
    session();
    expect(presence.of('a')).toMatchObject({ connections: 0, lastSeenAt: at(), disconnectedAt: at() });
    // back again: connected, no longer disconnected
    presence.connected('a');
    expect(presence.of('a').disconnectedAt).toBeNull();
    presence.close();
  });
});

describe('presence announcements', () => {
  it('a burst of calls is announced once per throttle interval, the last state included', () => {
    vi.useFakeTimers();
    try {
      let clock = 1_000;
      const presence = new Presence(() => new Date(clock).toISOString(), 500, () => clock);
      let fired = 0;
      presence.changes.on(PRESENCE_CHANGED, () => fired++);
      const release = presence.connected('a');
      for (let i = 0; i < 100; i++) presence.called('a', `tool_${i}`);
      vi.advanceTimersByTime(0);
      expect(fired).toBe(1);
      for (let i = 0; i < 100; i++) presence.called('a', `again_${i}`);
      clock += 100;
      vi.advanceTimersByTime(100);
      expect(fired).toBe(1); // still inside the interval
      clock += 400;
      vi.advanceTimersByTime(400);
      expect(fired).toBe(2); // one trailing announcement for the whole burst
      expect(presence.of('a')).toMatchObject({ connections: 1, lastCall: 'again_99' });
      release();
      release(); // twice is once
      expect(presence.of('a').connections).toBe(0);
      presence.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
