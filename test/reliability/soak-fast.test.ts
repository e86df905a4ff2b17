import { describe, expect, it } from 'vitest';
import { runCycles } from '../soak/cycles';
import { canMountTmpfs, expectFullDiskHandled, runFullDisk } from '../soak/disk';
import { runFuzz } from '../soak/fuzz';
import { runKillRounds } from '../soak/kills';
import { runLoad } from '../soak/load';

/**
 * The fast subset of `npm run soak` (test/soak/): the same scenario code at small counts. The full counts and
 * the figures they produce are in RELIABILITY.md, written by the soak run.
 */
describe('soak, fast subset', () => {
  it('5 random SIGKILLs under mixed two-era load: no violation of the acknowledged ledger or the room', async () => {
    const t = await runKillRounds(5);
    expect(t.details).toEqual([]);
    expect(t.rounds).toBe(5);
    expect(t.ackedGraphs + t.ackedHandoffChanges).toBeGreaterThan(0);
  }, 180_000);

  it('50 shell and stage spawn/kill cycles: no survivor, no fd, PTY or zombie growth', async () => {
    const t = await runCycles(50);
    expect(t).toMatchObject({ survivors: 0, zombies: 0 });
    expect(t.ptyGrowth).toBeLessThanOrEqual(0);
    expect(t.fdGrowth).toBeLessThanOrEqual(4);
  }, 180_000);

  it('6 clients of both eras × 30 mixed calls and 10 listeners: 0 errors, 0 cross-deliveries, the session cap refuses clearly', async () => {
    const t = await runLoad(6, 30, 10);
    expect(t.firstErrors).toEqual([]);
    expect(t).toMatchObject({ errors: 0, crossDeliveries: 0 });
    expect(t.notifications).toBeGreaterThan(0);
    expect(t.capRefusal).toMatch(/open MCP sessions, every one busy/);
    expect(t.taskCapRefusal).toMatch(/^LIMIT_EXCEEDED: .*finish or cancel one first/);
  }, 180_000);

  it('fuzz of every tool, framing and ReDoS patterns at small counts: every case answered cleanly', async () => {
    const t = await runFuzz(25, 100, 30);
    expect(t.problems).toEqual([]);
  }, 180_000);

  // needs root and mount(8): elsewhere vitest reports it skipped
  it.skipIf(!canMountTmpfs())('a full disk (4 MiB tmpfs) during a graph: the stage printing onto it fails DISK_FULL, writes are refused clearly, the runner recovers, the room is consistent', async () => {
    expectFullDiskHandled(await runFullDisk());
  }, 120_000);
});
