import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN_CE } from '../helpers/env';
import { LIMITS } from '../../src-main/common/limits';
import { startTestRunner, type TestRunner } from '../helpers/runner';

/**
 * A token never locks itself out by sessions its clients left open. Nearly every client leaves its 2025
 * session open when it exits (no DELETE): at the participant's cap the session used longest ago that is idle
 * makes room (its id then answers 404, and a client that comes back re-initialises), while a session with a
 * stream open or a call in flight is never the one closed. On the room's clock, moved instead of slept.
 */
let now = Date.now();
let r: TestRunner;

beforeAll(async () => {
  r = await startTestRunner({ clock: () => new Date(now) });
});
afterAll(async () => {
  await r.close();
});

const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const auth = (token: string) => ({ Authorization: `Bearer ${token}` });
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'claude-code', version: '2.0.0' } } };

/** What a client run does: initialize, initialized, one call, then exit without DELETE. */
async function clientRun(token: string): Promise<{ status: number; sid: string }> {
  const res = await fetch(r.running.mcpUrl, { method: 'POST', headers: { ...json, ...auth(token) }, body: JSON.stringify(INIT) });
  const sid = res.headers.get('mcp-session-id') ?? '';
  await res.text();
  if (res.status !== 200) return { status: res.status, sid };
  const headers = { ...json, ...auth(token), 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  await fetch(r.running.mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) }).then((x) => x.text());
  const list = await fetch(r.running.mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }) });
  await list.text();
  return { status: list.status, sid };
}

async function toolsList(token: string, sid: string): Promise<number> {
  const res = await fetch(r.running.mcpUrl, {
    method: 'POST',
    headers: { ...json, ...auth(token), 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
  });
  await res.text();
  return res.status;
}

describe('sessions left open by clients', () => {
  it('50 client runs without DELETE over an hour: every one connects', async () => {
    const { token } = await r.running.engine.call(r.running.engine.operator(), 'participant_add', { name: 'claude', capabilities: ['read', 'write'] });
    const sids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const run = await clientRun(token);
      expect(run.status, `run ${i + 1}`).toBe(200);
      sids.push(run.sid);
      now += 72_000; // 50 runs in an hour
    }
    // the newest are still there; the oldest made room and answer 404 (their clients start over)
    expect(await toolsList(token, sids.at(-1) as string)).toBe(200);
    expect(await toolsList(token, sids[0] as string)).toBe(404);
  });

  it('a session with a stream open is never the one closed; with every session busy the refusal says so', async () => {
    const { token } = await r.running.engine.call(r.running.engine.operator(), 'participant_add', { name: 'streamer', capabilities: ['read'] });
    const streams: AbortController[] = [];
    const openStream = async (sid: string) => {
      const stream = new AbortController();
      streams.push(stream);
      const get = await fetch(r.running.mcpUrl, { method: 'GET', headers: { accept: 'text/event-stream', ...auth(token), 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }, signal: stream.signal });
      expect(get.status).toBe(200);
    };
    try {
      const first = await clientRun(token);
      await openStream(first.sid);
      now += 60_000;
      // more runs than the cap: each closes an idle one, never the streaming first session
      for (let i = 0; i < LIMITS.maxLegacySessionsPerParticipant + 4; i++) {
        expect((await clientRun(token)).status).toBe(200);
        now += 1_000;
      }
      expect(await toolsList(token, first.sid)).toBe(200);
      // every place busy: refused, naming why
      const busy: string[] = [first.sid];
      while (busy.length < LIMITS.maxLegacySessionsPerParticipant) {
        const run = await clientRun(token);
        await openStream(run.sid);
        busy.push(run.sid);
      }
      const refused = await fetch(r.running.mcpUrl, { method: 'POST', headers: { ...json, ...auth(token) }, body: JSON.stringify(INIT) });
      expect(refused.status).toBe(503);
      const refusal = await refused.text();
      expect(refusal).toMatch(/streamer already has 16 open MCP sessions, every one busy/);
      // it names who holds them and how to end one
      expect(refusal).toContain('held by claude-code 2.0.0 ×16. End one (an operator: ce participant list, then ce participant close-session streamer SESSION)');
      for (const sid of busy) expect(await toolsList(token, sid)).toBe(200);
    } finally {
      for (const s of streams) s.abort();
    }
  });

  it("each participant's open sessions are listed with their client (ce participant list too) and can be closed", async () => {
    const { engine } = r.running;
    const { token } = await engine.call(engine.operator(), 'participant_add', { name: 'lister', capabilities: ['read'] });
    const run = await clientRun(token);
    const activity = await engine.call(engine.operator(), 'participant_activity', {});
    const mine = activity.participants.find((p) => p.name === 'lister');
    expect(mine?.sessions).toEqual([expect.objectContaining({ id: run.sid, client: 'claude-code 2.0.0' })]);
    const listed = await new Promise<string>((resolve) =>
      execFile(process.execPath, [BIN_CE, 'participant', 'list'], { env: r.home.env, encoding: 'utf8', timeout: 20_000 }, (_e, stdout, stderr) => resolve(stdout + stderr)),
    );
    expect(listed).toMatch(new RegExp(`session ${run.sid}  claude-code 2\\.0\\.0  opened`));
    expect(await engine.call(engine.operator(), 'participant_session_close', { name: 'lister', sessionId: run.sid })).toEqual({ closed: true });
    expect(await toolsList(token, run.sid)).toBe(404);
    await expect(engine.call(engine.operator(), 'participant_session_close', { name: 'lister', sessionId: run.sid })).rejects.toThrow(/no open session/);
  });
});
