import { describe, expect, it } from 'vitest';
import { runLoad } from './load';
import { FULL, report, sized } from './scale';

const CLIENTS = FULL ? 20 : 6;
const CALLS = sized(500, 30);
const LISTENERS = FULL ? 50 : 10;

describe('soak: many clients of both eras and listeners', () => {
  it(`${CLIENTS} clients × ${CALLS} mixed calls and ${LISTENERS} listeners: 0 errors, 0 cross-deliveries, the session cap refuses clearly`, async () => {
    const t = await runLoad(CLIENTS, CALLS, LISTENERS);
    console.log(`[soak load] ${JSON.stringify(t)}`);
    expect(t.firstErrors).toEqual([]);
    expect(t.errors).toBe(0);
    expect(t.crossDeliveries).toBe(0);
    expect(t.notifications).toBeGreaterThan(0);
    expect(t.capRefusal).toMatch(/open MCP sessions, every one busy/);
    expect(t.taskCapRefusal).toMatch(/^LIMIT_EXCEEDED: .*finish or cancel one first/);
    report('clients of both eras × mixed calls + listeners', `${t.clients} clients × ${t.callsPerClient} calls (${t.calls} in all), ${t.listeners} listeners (${t.notifications} notifications); errors ${t.errors}, cross-deliveries ${t.crossDeliveries}; call p50 ${t.p50} ms, p99 ${t.p99} ms; runner event-loop lag seen from outside p50 ${t.lagP50} ms, p99 ${t.lagP99} ms, max ${t.lagMax} ms; caps refused clearly: sessions ("${t.capRefusal.replace(/^.*"message":"/, "").slice(0, 60)}…"), tasks ("${t.taskCapRefusal.slice(0, 70)}…")`);
  }, sized(1_200_000, 180_000));
});
