import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeHome, type TestHome } from '../helpers/env';
import { seedRoomFile } from '../helpers/room-file';
import { runCe } from '../helpers/serve';

let home: TestHome;
beforeEach(() => {
  home = makeHome();
});
afterEach(() => home.cleanup());

describe('ce spend and ce envelope', () => {
  it('ce spend reads what a participant reported, per participant and per day (from the room file while no room runs)', async () => {
    await seedRoomFile(home, { builder: ['read', 'write'] }, async (engine, { builder }) => {
      const point = (metric: string, value: number, type?: string) => ({ metric, value, temporality: 'delta' as const, series: `${metric}${type ?? ''}`, attributes: type ? { type } : {} });
      await engine.call(builder, 'spend_record', { client: 'claude-code', points: [point('claude_code.cost.usage', 1.25), point('claude_code.token.usage', 40_000, 'input'), point('claude_code.token.usage', 900, 'output')] });
    });
    const json = runCe(home, ['spend', '--json']);
    expect(json.status, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).totals).toEqual([{ participant: 'builder', inputTokens: 40_000, outputTokens: 900, cacheReadTokens: 0, cacheWriteTokens: 0, costMicroUsd: 1_250_000 }]);
    const text = runCe(home, ['spend', '--days', '1']);
    expect(text.stdout).toMatch(/^builder\s+\$1\.25 {2}40,000 in, 900 out, 0 cache read$/m);
    expect(text.stdout).toMatch(/^\d{4}-\d\d-\d\d {2}builder\s+\$1\.25\s+40,000 in\s+900 out {2}\(not started by the room\)$/m);
  });

  it('ce envelope says what it bounds and refuses a target it cannot find', async () => {
    await seedRoomFile(home, {}, async () => undefined);
    const none = runCe(home, ['envelope', 'set', '--max-cost', '2']);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/name what the envelope bounds: one of --agent TERMINAL_ID/);
    const bad = runCe(home, ['envelope', 'set', '--agent', 'sh_x', '--max-cost', 'lots']);
    expect(bad.stderr).toMatch(/--max-cost takes a positive number, not "lots"/);
    const gone = runCe(home, ['envelope', 'set', '--agent', 'sh_x', '--max-cost', '2']);
    expect(gone.status).toBe(1);
    expect(gone.stderr).toMatch(/no agent the room started runs in terminal sh_x/);
  });
});
