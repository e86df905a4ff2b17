/**
 * `ce summary`: the morning summary as text (and --json), from the room file read-only when no room process runs,
 * after a small night: a handoff waiting for review, one waiting on an answer, one approved, one rejected.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RoomSummary } from '../../src-main/common/methods/summary';
import { makeHome, type TestHome } from '../helpers/env';
import { seedRoomFile } from '../helpers/room-file';
import { runCe } from '../helpers/serve';

let home: TestHome;
beforeEach(() => {
  home = makeHome();
});
afterEach(() => home.cleanup());

function seedNight(): Promise<void> {
  return seedRoomFile(home, { alice: ['read', 'write'], bob: ['read', 'write'] }, async (engine, { op, alice, bob }) => {
    const done = async (summary: string) => {
      const { handoff } = await engine.call(alice, 'handoff_create', { summary, to: 'bob' });
      await engine.call(bob, 'handoff_accept', { handoffId: handoff.id });
      await engine.call(bob, 'handoff_complete', { handoffId: handoff.id, result: 'done' });
      return handoff.id;
    };
    await done('Write the release notes, all of them, for every platform and every language we ship in this winter');
    const asked = (await engine.call(alice, 'handoff_create', { summary: 'Pick the log format', to: 'bob' })).handoff.id;
    await engine.call(bob, 'handoff_accept', { handoffId: asked });
    await engine.call(bob, 'handoff_request_input', { handoffId: asked, requests: { format: { message: 'JSON or text?' } } });
    await engine.call(op, 'handoff_approve', { handoffId: await done('Tidy the build scripts'), reason: 'reads well' });
    await engine.call(op, 'handoff_reject', { handoffId: await done('Move the billing service'), reason: 'not yet' });
  });
}

describe('ce summary', () => {
  it('prints what waits (oldest first) and what ended as sentences, with counts; --json is the method\'s answer', async () => {
    await seedNight();
    const out = runCe(home, ['summary']);
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^Since [A-Z][a-z]{2} \d{1,2} \d\d:\d\d:$/);
    expect(lines[2]).toBe('Waiting for you (1 to review, 1 question)');
    expect(lines[3]).toMatch(/^ {2}· +[\w ]*\d\d:\d\d {2}handoff “Write the release notes, all of them, for every platform and every language we …” from bob waits for your review$/);
    expect(lines[4]).toMatch(/handoff “Pick the log format” from bob waits for your answer$/);
    expect(lines[6]).toBe('Finished, failed, stalled or limited (1 rejected, 3 completed, 1 approved)');
    expect(out.stdout).toMatch(/✗ +[\w ]*\d\d:\d\d {2}operator rejected handoff “Move the billing service”: “not yet”/);
    expect(out.stdout).toMatch(/✓ +[\w ]*\d\d:\d\d {2}operator approved handoff “Tidy the build scripts”: “reads well”/);
    expect(out.stdout).not.toContain('{');

    const json = runCe(home, ['summary', '--json']);
    const summary = JSON.parse(json.stdout) as RoomSummary;
    expect(summary.sections.map((s) => s.id)).toEqual(['waiting', 'ended']);
  });

  it('says so when nothing happened in the window, and refuses a time it cannot read', async () => {
    await seedNight();
    const later = runCe(home, ['summary', '--since', '2099-01-01T00:00:00Z']);
    expect(later.status, later.stderr).toBe(0);
    expect(later.stdout).not.toContain('Finished');
    expect(later.stdout).toContain('Waiting for you (1 to review, 1 question)'); // what waits stays, whatever the window
    const bad = runCe(home, ['summary', '--since', 'yesterday']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('--since takes a time ago (30m, 2h, 7d) or an ISO 8601 time');
  });
});
