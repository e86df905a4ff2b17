import fs from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src-main/engine/engine';
import { Room } from '../../src-main/engine/room/room';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome, type TestHome } from '../helpers/env';
import { runCe } from '../helpers/serve';

let home: TestHome;
let running: RunningRoom;
let token: string;

async function toolCall(name: string, args: Record<string, unknown>) {
  const res = await fetch(running.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
  });
  return res.text();
}

beforeAll(async () => {
  home = makeHome();
  running = await startRunner({ port: 0, paths: home.paths });
  token = (await running.engine.call(running.engine.operator(), 'participant_add', { name: 'auditee', capabilities: ['read', 'write'] })).token;
});
afterAll(async () => {
  await running.close();
  home.cleanup();
});

describe('the audit log', () => {
  it('records every tool call: who, method, when, outcome or error code, duration; never argument values', async () => {
    await toolCall('room_info', {});
    await toolCall('shell_io', { shellId: 'sh-000000-secret-value-42', text: 'hunter2-password' });
    await toolCall('audit_list', {});
    const { entries } = await running.engine.call(running.engine.operator(), 'audit_list', { limit: 10 });
    const mine = entries.filter((e) => e.participant === 'auditee');
    // audit_list is not offered to this participant at all ("unknown tool"): no engine call, nothing to record
    expect(mine.map((e) => [e.method, e.outcome])).toEqual([
      ['shell_io', 'NOT_FOUND'],
      ['room_info', 'ok'],
    ]);
    for (const e of mine) {
      expect(Number.isNaN(Date.parse(e.at))).toBe(false);
      expect(e.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(JSON.stringify(entries)).not.toMatch(/secret-value|hunter2/);
    expect(mine.every((e) => e.target === null)).toBe(true); // a made-up id is not kept as a target either
  });

  it('records a call of every tool the MCP door serves, whatever its outcome (no tool reaches the engine past call)', { timeout: 60_000 }, async () => {
    const operatorToken = fs.readFileSync(running.tokenFile, 'utf8').trim();
    const client = new Client({ name: 'audit-every-tool', version: '1' }, { versionNegotiation: { mode: 'legacy' } });
    await client.connect(new StreamableHTTPClientTransport(running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${operatorToken}` } } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(20);
      const since = (await running.engine.call(running.engine.operator(), 'audit_list', { limit: 1 })).entries[0]?.id ?? 0;
      // empty arguments: most are refused by their schema (and a refusal is recorded too); none waits
      for (const tool of tools) await client.callTool({ name: tool.name, arguments: {} });
      const { entries } = await running.engine.call(running.engine.operator(), 'audit_list', { participant: 'operator', limit: 500 });
      const recorded = new Set(entries.filter((e) => e.id > since).map((e) => e.method));
      expect(tools.map((t) => t.name).filter((name) => !recorded.has(name)), 'tools called but not in the audit log').toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("keeps the id a call was about (an id of the room's own shape), and lists one participant's calls", async () => {
    const opened = JSON.parse(await toolCall('shell_open', { name: 'secret name 42' })) as { result: { structuredContent: { shell: { id: string } } } };
    const { shell } = opened.result.structuredContent;
    expect(shell.id).toMatch(/^sh_/);
    await toolCall('shell_io', { shellId: shell.id, text: 'echo hunter3\n' });
    const { entries } = await running.engine.call(running.engine.operator(), 'audit_list', { participant: 'auditee', limit: 5 });
    expect(entries.every((e) => e.participant === 'auditee')).toBe(true);
    expect(entries.slice(0, 2).map((e) => [e.method, e.target])).toEqual([
      ['shell_io', shell.id],
      ['shell_open', null],
    ]);
    expect(JSON.stringify(entries)).not.toMatch(/secret name|hunter3/);
    await toolCall('shell_close', { shellId: shell.id });
    // audit rows commit without their own fsync, but the room's state commits keep synchronous=FULL
    expect(running.engine.room.db.pragma('synchronous', { simple: true })).toBe(2);
  });

  it('pages newest first with cursor/nextCursor, and is bounded to the newest N rows', async () => {
    const small = makeHome();
    const engine = await Engine.start(Room.open({ paths: small.paths }), { auditRingSize: 5 });
    try {
      const op = engine.operator();
      for (let i = 0; i < 12; i++) await engine.call(op, 'room_info', {});
      const first = await engine.call(op, 'audit_list', { limit: 3 });
      expect(first.entries).toHaveLength(3);
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await engine.call(op, 'audit_list', { limit: 3, cursor: first.nextCursor as string });
      const ids = [...first.entries, ...second.entries].map((e) => e.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(new Set(ids).size).toBe(ids.length);
      expect(second.nextCursor).toBeNull();
      // 12 room_info and 3 audit_list calls so far, but only the newest 5 rows are kept
      const all = await engine.call(op, 'audit_list', { limit: 500 });
      expect(all.entries).toHaveLength(5);
      expect(all.entries[0]?.method).toBe('audit_list');
    } finally {
      await engine.close();
      small.cleanup();
    }
  });

  it('"ce audit" prints the log for the operator', () => {
    const cli = makeHome();
    try {
      // only serve and ce init create a room; a change opens it (and is audited when its process closes the room)
      expect(runCe(cli, ['init']).status).toBe(0);
      expect(runCe(cli, ['participant', 'add', 'reader', '--can', 'read']).status).toBe(0);
      const out = runCe(cli, ['audit']);
      expect(out.status, out.stderr).toBe(0);
      expect(out.stdout).toMatch(/operator\s+participant_add\s+ok/);
    } finally {
      cli.cleanup();
    }
  });
});
