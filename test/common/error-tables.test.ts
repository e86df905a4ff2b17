import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_STATUS } from '../../src-main/api/http-status';
import { UsageError } from '../../src-main/cli/args';
import { EXIT, EXIT_FOR_ERROR, exitCodeFor } from '../../src-main/cli/exit-codes';
import { ERROR_CODES, RoomError } from '../../src-main/common/errors';
import { TASK_ERROR_CODES } from '../../src-main/common/task-record';
import { RPC, RPC_FOR_ERROR } from '../../src-main/mcp/transport/rpc-errors';
import type { RunningRoom } from '../../src-main/server/runner';
import { REPO } from '../helpers/env';
import { startTestRunner, type TestRunner } from '../helpers/runner';

describe('one error table per door', () => {
  it('every engine error code has an HTTP status, a JSON-RPC code and an exit code', () => {
    for (const code of ERROR_CODES) {
      expect(HTTP_STATUS[code], code).toBeGreaterThanOrEqual(400);
      expect(HTTP_STATUS[code], code).toBeLessThan(600);
      expect(Object.values(RPC), code).toContain(RPC_FOR_ERROR[code]);
      expect([EXIT.refused], code).toContain(EXIT_FOR_ERROR[code]);
    }
    expect(Object.keys(HTTP_STATUS).sort()).toEqual([...ERROR_CODES].sort());
    expect(Object.keys(RPC_FOR_ERROR).sort()).toEqual([...ERROR_CODES].sort());
    expect(Object.keys(EXIT_FOR_ERROR).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('each JSON-RPC code has one meaning; a timed-out task carries the same value the table names', () => {
    const codes = Object.values(RPC);
    expect(new Set(codes).size).toBe(codes.length);
    expect(RPC.requestTimeout).toBe(TASK_ERROR_CODES.expired);
    expect(RPC.internalError).toBe(TASK_ERROR_CODES.failed);
  });

  it('no JSON-RPC code is written as a number outside the table (mcp/, server/, api/)', () => {
    const offenders: string[] = [];
    for (const dir of ['mcp', 'server', 'api']) {
      const files = fs.readdirSync(path.join(REPO, 'src-main', dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
      expect(files.length, dir).toBeGreaterThan(2);
      for (const file of files) {
        if (path.basename(file) === 'rpc-errors.ts') continue;
        const code = fs.readFileSync(path.join(REPO, 'src-main', dir, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
        for (const m of code.matchAll(/-32\d{3}\b/g)) offenders.push(`${dir}/${file}: ${m[0]}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the CLI exits 2 for a usage mistake and by the table for a refusal', () => {
    expect(exitCodeFor(new UsageError('ce frob: unknown command'))).toBe(2);
    expect(exitCodeFor(new RoomError('NOT_FOUND', 'unknown task'))).toBe(EXIT_FOR_ERROR.NOT_FOUND);
    expect(exitCodeFor(new Error('anything else'))).toBe(EXIT.refused);
  });
});

describe('the doors answer by the tables', () => {
  let running: RunningRoom;
  let token: string;
  let runner: TestRunner;
  beforeAll(async () => {
    runner = await startTestRunner();
    ({ running, token } = runner);
  });
  afterAll(() => runner?.close());

  const post = (pathname: string, body: unknown, headers: Record<string, string>) =>
    fetch(new URL(pathname, running.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

  it('MCP: no token is -32010 with 401; an unknown session is -32011 with 404', async () => {
    const anonymous = await post('/mcp', ping, {});
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: number } }).error.code).toBe(RPC.unauthenticated);
    const stale = await post('/mcp', ping, { authorization: `Bearer ${token}`, 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': '2025-11-25' });
    expect(stale.status).toBe(404);
    expect(((await stale.json()) as { error: { code: number } }).error.code).toBe(RPC.sessionNotFound);
  });

  it('HTTP API: each refusal has the status its code maps to', async () => {
    const call = async (method: string, input: unknown) => {
      const r = await post(`/api/${method}`, input, { authorization: `Bearer ${token}` });
      return { status: r.status, code: ((await r.json()) as { error?: { code: string } }).error?.code };
    };
    expect(await call('handoff_get', { handoffId: 'h_nope' })).toEqual({ status: HTTP_STATUS.NOT_FOUND, code: 'NOT_FOUND' });
    expect(await call('participant_add', { name: 'bad name!', capabilities: ['read'] })).toEqual({ status: HTTP_STATUS.INVALID_INPUT, code: 'INVALID_INPUT' });
    expect(await call('participant_revoke', { name: 'operator' })).toEqual({ status: HTTP_STATUS.FORBIDDEN, code: 'FORBIDDEN' });
    const anonymous = await post('/api/room_info', {}, {});
    expect(anonymous.status).toBe(HTTP_STATUS.UNAUTHENTICATED);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
  });
});
