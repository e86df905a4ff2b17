import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sinceFlag } from '../../src-main/cli/commands/history';
import { makeHome, type TestHome } from '../helpers/env';
import { seedRoomFile } from '../helpers/room-file';
import { runCe } from '../helpers/serve';

let home: TestHome;
beforeEach(() => {
  home = makeHome();
});
afterEach(() => home.cleanup());

/** Three ended handoffs (approved with a note, rejected with a reason, cancelled by its owner) and one still open. */
function seedRoom(): Promise<Record<'approved' | 'rejected' | 'cancelled' | 'open', string>> {
  return seedRoomFile(home, { alice: ['read', 'write'], bob: ['read', 'write'] }, async (engine, { op, alice, bob }) => {
    const done = async (summary: string) => {
      const { handoff } = await engine.call(alice, 'handoff_create', { summary, to: 'bob' });
      await engine.call(bob, 'handoff_accept', { handoffId: handoff.id });
      await engine.call(bob, 'handoff_complete', { handoffId: handoff.id, result: 'done' });
      return handoff.id;
    };
    const approved = await done('Write the release notes');
    await engine.call(op, 'handoff_approve', { handoffId: approved, reason: 'reads well' });
    const rejected = await done('Move the billing service');
    await engine.call(op, 'handoff_reject', { handoffId: rejected, reason: 'the old pipeline still deploys it' });
    const cancelled = (await engine.call(bob, 'handoff_create', { summary: 'Tidy the build scripts' })).handoff.id;
    await engine.call(bob, 'handoff_cancel', { handoffId: cancelled, reason: 'not needed' });
    const open = (await engine.call(alice, 'handoff_create', { summary: 'Still open' })).handoff.id;
    return { approved, rejected, cancelled, open };
  });
}

describe('ce history', () => {
  it('lists the ended handoffs, last ended first, with who ended each and why; the open one is not there', async () => {
    const ids = await seedRoom();
    const out = runCe(home, ['history']);
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trim().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(new RegExp(`^${ids.cancelled}\\s+cancelled .* by bob\\s+Tidy the build scripts$`));
    expect(lines[1]).toContain('“not needed”');
    expect(lines[2]).toMatch(new RegExp(`^${ids.rejected}\\s+rejected .* by operator\\s+Move the billing service$`));
    expect(lines[3]).toContain('“the old pipeline still deploys it”');
    expect(lines[4]).toMatch(new RegExp(`^${ids.approved}\\s+approved `));
    expect(out.stdout).not.toContain(ids.open);
  });

  it('narrows by how it ended, participant, time and text, as the History screen does', async () => {
    const ids = await seedRoom();
    const idsOf = (args: string[]) => {
      const out = runCe(home, ['history', ...args, '--json']);
      expect(out.status, out.stderr).toBe(0);
      return (JSON.parse(out.stdout) as { handoffs: { id: string }[] }).handoffs.map((h) => h.id);
    };
    expect(idsOf(['--status', 'rejected'])).toEqual([ids.rejected]);
    expect(idsOf(['--participant', 'alice'])).toEqual([ids.rejected, ids.approved]);
    expect(idsOf(['--text', 'BILLING'])).toEqual([ids.rejected]);
    expect(idsOf(['--since', '1h'])).toHaveLength(3);
    expect(idsOf(['--since', '2099-01-01T00:00:00Z'])).toEqual([]);
    expect(runCe(home, ['history', '--status', 'rejected', '--since', '2099-01-01']).stdout.trim()).toBe('no ended handoffs match');
  });

  it('refuses a bad status or time with what it takes, and reads nothing', async () => {
    await seedRoom();
    const status = runCe(home, ['history', '--status', 'done']);
    expect(status.status).not.toBe(0);
    expect(status.stderr).toContain('--status is approved, rejected or cancelled, not "done"');
    const since = runCe(home, ['history', '--since', 'yesterday']);
    expect(since.status).not.toBe(0);
    expect(since.stderr).toContain('--since takes a time ago (30m, 2h, 7d) or an ISO 8601 time');
    expect(sinceFlag('2h', Date.parse('2026-12-04T12:00:00Z'))).toBe('2026-12-04T10:00:00.000Z');
  });
});
