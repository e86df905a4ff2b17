import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../src-main/common/dto';
import { openBench, type Bench } from './fixture';

/** handoff_get waits: an agent waiting for a decision holds one call instead of polling. */
let bench: Bench;
let asker: Caller;
let doer: Caller;
beforeAll(async () => {
  bench = await openBench();
  asker = await bench.add('asker', ['read', 'write']);
  doer = await bench.add('doer', ['read', 'write']);
});
afterAll(() => bench.close());

async function newHandoff(summary: string): Promise<string> {
  return (await bench.call(asker, 'handoff_create', { summary, to: 'doer' })).handoff.id;
}

describe('handoff_get with waitMs', () => {
  it('until "approved" is answered by the approval, not by the accept and completion before it', async () => {
    const id = await newHandoff('wait for approval');
    const waiting = bench.engine.call(asker, 'handoff_get', { handoffId: id, waitMs: 20_000, until: 'approved' });
    let answered = false;
    void waiting.then(() => (answered = true));
    await bench.call(doer, 'handoff_accept', { handoffId: id });
    await bench.call(doer, 'handoff_complete', { handoffId: id, result: 'done' });
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    await bench.call(bench.op, 'handoff_approve', { handoffId: id, reason: 'fine' });
    const out = await waiting;
    expect(out.handoff.status).toBe('approved');
    expect(out.waitedMs).toBeGreaterThanOrEqual(0);
    expect(out.waitedMs).toBeLessThan(20_000);
  });

  it('until a status it can no longer reach ends with the end that ruled it out', async () => {
    const id = await newHandoff('will be cancelled');
    const waiting = bench.engine.call(asker, 'handoff_get', { handoffId: id, waitMs: 20_000, until: 'result_ready' });
    await bench.call(asker, 'handoff_cancel', { handoffId: id, reason: 'not needed' });
    expect((await waiting).handoff.status).toBe('cancelled');
  });

  it('a status already reached answers at once, with waitedMs 0', async () => {
    const id = await newHandoff('already accepted');
    await bench.call(doer, 'handoff_accept', { handoffId: id });
    const out = await bench.call(asker, 'handoff_get', { handoffId: id, waitMs: 20_000, until: 'accepted' });
    expect(out).toMatchObject({ handoff: { status: 'accepted' }, waitedMs: 0 });
  });

  it('"change" (the default) answers on the next change of the handoff or its task', async () => {
    const id = await newHandoff('any change');
    await bench.call(doer, 'handoff_accept', { handoffId: id });
    const waiting = bench.engine.call(asker, 'handoff_get', { handoffId: id, waitMs: 20_000 });
    await bench.call(doer, 'handoff_request_input', { handoffId: id, requests: { env: { message: 'which environment?', requestedSchema: { type: 'object', properties: { env: { type: 'string' } } } } } });
    const out = await waiting;
    expect(out.handoff.status).toBe('accepted');
    expect(out.handoff.task?.status).toBe('input_required');
  });

  it('ends at waitMs with the handoff as it is, and when the caller gives up', async () => {
    const id = await newHandoff('nothing happens');
    const timed = await bench.call(asker, 'handoff_get', { handoffId: id, waitMs: 120, until: 'ended' });
    expect(timed.handoff.status).toBe('open');
    expect(timed.waitedMs).toBeGreaterThanOrEqual(100);
    const gaveUp = new AbortController();
    const waiting = bench.engine.call(asker, 'handoff_get', { handoffId: id, waitMs: 20_000 }, { signal: gaveUp.signal });
    gaveUp.abort();
    expect((await waiting).handoff.status).toBe('open');
  });

  it('refuses until without waitMs, a wait past the cap, and a handoff the caller may not see, before waiting', async () => {
    const id = await newHandoff('refusals');
    await expect(bench.call(asker, 'handoff_get', { handoffId: id, until: 'approved' })).rejects.toThrow(/give waitMs too/);
    await expect(bench.call(asker, 'handoff_get', { handoffId: id, waitMs: 10_000_000 })).rejects.toThrow(/waitMs/);
    const stranger = await bench.add('stranger', ['read']);
    // addressed to doer: a third participant does not see it, and its wait is refused as for any unknown handoff
    await expect(bench.call(stranger, 'handoff_get', { handoffId: id, waitMs: 5_000 })).rejects.toThrow(/unknown handoff/);
  });
});
