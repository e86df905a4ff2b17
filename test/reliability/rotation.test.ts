/**
 * Tokens rotate: a participant gets a new token under its name and the old one ends at once, its in-flight
 * 2026 request and its open 2025 stream too; a revoked name can be added again, its history kept; rotating the
 * operator rewrites its token file and signs every browser UI session out; nobody rotates a token more
 * powerful than their own. Real HTTP on 127.0.0.1, the `ce` door (/api) and real SDK clients.
 */
import fs from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRunner, type TestRunner } from '../helpers/runner';
import { BASH, sleep } from '../engine/shells/helpers';

let runner: TestRunner;

async function api(token: string, method: string, body: unknown): Promise<{ status: number; body: { result?: Record<string, unknown> & { token?: string }; error?: { code: string; message: string } } }> {
  const res = await fetch(new URL(`/api/${method}`, runner.running.baseUrl), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as never };
}

async function client(token: string, mode: 'auto' | 'legacy'): Promise<Client> {
  const c = new Client({ name: `rotation-${mode}`, version: '1' }, { versionNegotiation: { mode } });
  await c.connect(new StreamableHTTPClientTransport(runner.running.mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return c;
}

beforeAll(async () => {
  runner = await startTestRunner();
});

afterAll(() => runner?.close());

describe('token rotation', () => {
  it("ends the old token's in-flight 2026 request and its open 2025 session at once; the new one works", async () => {
    const old = (await api(runner.token, 'participant_add', { name: 'rotated', capabilities: ['read', 'write'] })).body.result?.token as string;
    const modern = await client(old, 'auto');
    const legacy = await client(old, 'legacy');
    const { shell } = (await modern.callTool({ name: 'shell_open', arguments: BASH })).structuredContent as { shell: { id: string } };
    const started = Date.now();
    const waiting = modern
      .callTool({ name: 'shell_io', arguments: { shellId: shell.id, wait: { until: 'match', pattern: 'never-printed', timeoutMs: 40_000 } } }, { timeout: 30_000 })
      .then((r) => JSON.stringify(r), (e: Error) => `rejected: ${e.message}`);
    const legacyWait = legacy
      .callTool({ name: 'shell_io', arguments: { shellId: shell.id, wait: { until: 'match', pattern: 'never-printed', timeoutMs: 40_000 } } }, { timeout: 30_000 })
      .then((r) => JSON.stringify(r), (e: Error) => `rejected: ${e.message}`);
    await sleep(300);
    const rotated = await api(runner.token, 'participant_rotate', { name: 'rotated' });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.result?.token as string;
    expect(fresh).toMatch(/^cr_/);
    expect(fresh).not.toBe(old);
    expect(await waiting).toMatch(/revoked/);
    expect(await legacyWait).toMatch(/revoked/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await api(old, 'shell_list', {})).status).toBe(401);
    expect((await api(fresh, 'shell_list', {})).status).toBe(200);
    const again = await client(fresh, 'auto');
    expect((await again.callTool({ name: 'shell_list', arguments: {} })).isError).toBeFalsy();
    for (const c of [modern, legacy, again]) await c.close().catch(() => undefined);
  }, 30_000);

  it('a call made with the new token at once (before the old calls are ended, a turn later) is not ended with them', async () => {
    const { engine } = runner.running;
    const op = engine.operator();
    await engine.call(op, 'participant_add', { name: 'quick', capabilities: ['read', 'write'] });
    const { handoff } = await engine.call(op, 'handoff_create', { summary: 'something to wait on', to: 'quick' });
    const { token } = await engine.call(op, 'participant_rotate', { name: 'quick' });
    const quick = engine.authenticate(token);
    if (!quick) throw new Error('the new token did not authenticate');
    // started in the same turn as the rotation's answer: the old token's calls are ended on the next one
    const waited = await engine.call(quick, 'handoff_get', { handoffId: handoff.id, waitMs: 200 });
    expect(waited.handoff.id).toBe(handoff.id);
    expect(waited.waitedMs).toBeGreaterThanOrEqual(150);
  });

  it('a revoked name can be added again: one participant, its earlier history still its own', async () => {
    const first = (await api(runner.token, 'participant_add', { name: 'comeback', capabilities: ['read', 'write'] })).body.result?.token as string;
    await api(first, 'handoff_create', { summary: 'before the revocation' });
    await api(runner.token, 'participant_revoke', { name: 'comeback' });
    const refusedRotate = await api(runner.token, 'participant_rotate', { name: 'comeback' });
    expect(refusedRotate.body.error?.message).toMatch(/is revoked: add it again/);
    const readded = await api(runner.token, 'participant_add', { name: 'comeback', capabilities: ['read'] });
    expect(readded.status).toBe(200);
    const list = (await api(runner.token, 'participant_list', {})).body.result?.participants as Array<{ name: string; revokedAt: string | null; capabilities: string[] }>;
    expect(list.filter((p) => p.name === 'comeback')).toEqual([expect.objectContaining({ revokedAt: null, capabilities: ['read'] })]);
    const handoffs = (await api(readded.body.result?.token as string, 'handoff_list', {})).body.result?.handoffs as Array<{ owner: string; summary: string }>;
    expect(handoffs.find((h) => h.summary === 'before the revocation')?.owner).toBe('comeback');
    expect((await api(first, 'shell_list', {})).status).toBe(401);
  });

  it('nobody rotates a token more powerful than their own', async () => {
    const admin = (await api(runner.token, 'participant_add', { name: 'rot-admin', capabilities: ['read', 'operate'] })).body.result?.token as string;
    await api(runner.token, 'participant_add', { name: 'rot-writer', capabilities: ['read', 'write'] });
    await api(runner.token, 'participant_add', { name: 'rot-approver', capabilities: ['read', 'approve'] });
    for (const name of ['rot-writer', 'rot-approver', 'operator']) {
      const r = await api(admin, 'participant_rotate', { name });
      expect(r.status, name).toBe(403);
      expect(r.body.error?.message).toMatch(/cannot give .* a new token/);
    }
    // the refusal names what is beyond the caller, and only that
    expect((await api(admin, 'participant_rotate', { name: 'rot-writer' })).body.error?.message).toMatch(/it can do what you cannot \(write\)/);
  });

  it("rotating the operator rewrites its token file and signs every browser UI session out", async () => {
    const { engine } = runner.running;
    const link = engine.uiSessions.mintLink();
    const signIn = engine.uiSessions.signIn(new URLSearchParams(link.hash.slice(1)).get('token') as string, 'test');
    expect(signIn.ok).toBe(true);
    const rotated = await api(runner.token, 'participant_rotate', { name: 'operator' });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const written = fs.readFileSync(runner.running.tokenFile, 'utf8').trim();
    expect(written).toBe(rotated.body.result?.token);
    expect((await api(runner.token, 'room_info', {})).status).toBe(401);
    expect((await api(written, 'room_info', {})).status).toBe(200);
    expect(engine.uiSessions.list()).toEqual([]);
    runner.token = written;
  });
});
