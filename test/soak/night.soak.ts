import { describe, expect, it } from 'vitest';
import { runNight } from './night';
import { report, sized } from './scale';

/** Wall minutes: 2 hours at full size, 4 at the small; COMMONROOM_SOAK_NIGHT_MINUTES sets it either way. */
const MINUTES = Number(process.env.COMMONROOM_SOAK_NIGHT_MINUTES) || sized(120, 4);
/** A SIGKILL every 3–7 minutes of a long run, every 25–45 s of a short one. */
const ROUND_S: [number, number] = MINUTES >= 30 ? [180, 420] : [25, 45];

describe('soak: an accelerated night', () => {
  it(`${MINUTES} wall minutes for 10 room hours: schedules, stalls, limits, 20 stand-in agents, envelopes, SIGKILLs: 0 lost events, 0 runs done twice, 0 silent resumes`, async () => {
    const t = await runNight(MINUTES, { roundSeconds: ROUND_S });
    console.log(`[soak night] ${JSON.stringify(t)}`);
    expect(t.violations.details).toEqual([]);
    expect(t.violations.byClass).toEqual({ lost: 0, twice: 0, silent: 0 });
    // the night did what it is for: each kind of thing happened
    expect(t.kills).toBeGreaterThan(0);
    expect(t.schedules.ran).toBeGreaterThan(0);
    expect(t.schedules.skipped).toBeGreaterThan(0);
    expect(t.schedules.missed).toBeGreaterThan(0);
    expect(t.stalled).toBeGreaterThan(0);
    expect(t.interrupted).toBeGreaterThan(0);
    expect(t.restarted).toBeGreaterThan(0);
    expect(t.limited).toBeGreaterThan(0);
    expect(t.resumed).toBeGreaterThan(0);
    expect(t.envelopeStops).toBeGreaterThan(0);
    const s = t.schedules;
    report(
      'accelerated night (schedules, stalls, limits, envelopes, SIGKILLs)',
      `${t.wallMinutes} wall min for 10 room h (×${t.factor.toFixed(0)}), ${t.kills} SIGKILLs of the room; 20 stand-in agents, ${t.agentStarts} starts: ${t.stalled} stalls (${t.interrupted} interrupted, ${t.restarted} restarted), ${t.limited} limits (${t.resumed} resumed at the reset); ` +
        `schedules every ${t.scheduleStepMinutes} room min: ${s.due} due times, ${s.ran} ran, ${s.skipped} skipped, ${s.missed} missed, ${s.failed} failed at a kill; ${t.envelopeStops} of ${t.graphsUnderEnvelope} enveloped graphs stopped; ${t.events} events read, ${t.markers} stage markers, ${t.tornRecords} stand-in log records cut short by a kill (read past); ` +
        `lost events ${t.violations.byClass.lost}, runs done twice ${t.violations.byClass.twice}, silent resumes ${t.violations.byClass.silent}`,
    );
  }, (MINUTES + 10) * 60_000);
});
