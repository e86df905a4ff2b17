/**
 * Grants are bounded by the granter, through the door a program with an `operate` token would use (the HTTP
 * API `ce` uses): nobody grants a capability they lack, and only the operator grants approve.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRunner, type TestRunner } from '../helpers/runner';

let runner: TestRunner;

async function api(token: string, method: string, body: unknown): Promise<{ status: number; body: { result?: { token?: string }; error?: { code: string; message: string } } }> {
  const res = await fetch(new URL(`/api/${method}`, runner.running.baseUrl), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as never };
}

beforeAll(async () => {
  runner = await startTestRunner();
});

afterAll(() => runner?.close());

describe('grants', () => {
  it('a read,operate participant cannot create one with approve, nor with write it lacks; it may grant what it has', async () => {
    const admin = await api(runner.token, 'participant_add', { name: 'helper-admin', capabilities: ['read', 'operate'] });
    const token = admin.body.result?.token as string;
    const withApprove = await api(token, 'participant_add', { name: 'sneaky', capabilities: ['read', 'write', 'approve', 'operate'] });
    expect(withApprove.status).toBe(403);
    expect(withApprove.body.error?.message).toMatch(/cannot grant write, approve/);
    const approveOnly = await api(token, 'participant_add', { name: 'sneaky', capabilities: ['approve'] });
    expect(approveOnly.status).toBe(403);
    const reader = await api(token, 'participant_add', { name: 'reader', capabilities: ['read'] });
    expect(reader.status).toBe(200);
    const list = await api(runner.token, 'participant_list', {});
    expect(JSON.stringify(list.body)).not.toContain('sneaky');
  });

  it('an agent given approve and operate by the operator still cannot grant approve', async () => {
    const trusted = await api(runner.token, 'participant_add', { name: 'trusted', capabilities: ['read', 'write', 'approve', 'operate'] });
    const token = trusted.body.result?.token as string;
    const refused = await api(token, 'participant_add', { name: 'trusted-2', capabilities: ['read', 'approve'] });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.message).toMatch(/only the operator grants approve/);
    expect((await api(runner.token, 'participant_add', { name: 'trusted-3', capabilities: ['read', 'approve'] })).status).toBe(200);
  });
});
