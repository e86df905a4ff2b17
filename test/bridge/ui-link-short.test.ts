/**
 * Links minted from the signed-in UI for another tab or a phone: one-time, refused once 5 minutes have passed
 * unused, listed with what they were made for, loopback as every link; and only the operator mints one. The room's
 * clock is the test's (no waiting).
 */
import { describe, expect, it } from 'vitest';
import { SHORT_LINK_MS, BrowserSignIns } from '../../src-main/engine/people/sign-ins';
import { uiFeature } from '../../src-main/engine/people/ui-feature';
import type { Caller } from '../../src-main/common/dto';

function sessionsAt(start: number) {
  let now = start;
  const sessions = new BrowserSignIns(() => new Date(now).toISOString());
  sessions.serveAt(new URL('http://127.0.0.1:7391/'));
  return { sessions, advance: (ms: number) => (now += ms) };
}
const tokenOf = (url: URL | string) => new URLSearchParams(new URL(url).hash.slice(1)).get('token') as string;

describe('a sign-in link made in the UI', () => {
  it('signs in once, within 5 minutes, and the sign-in says what it was made for', () => {
    const { sessions, advance } = sessionsAt(Date.parse('2026-12-05T03:00:00Z'));
    const phone = sessions.mintLink({ ttlMs: SHORT_LINK_MS, purpose: 'phone' });
    expect(phone.origin).toBe('http://127.0.0.1:7391');
    advance(SHORT_LINK_MS - 1000);
    const signed = sessions.signIn(tokenOf(phone), 'phone browser');
    expect(signed.ok).toBe(true);
    expect(sessions.list().map((s) => s.purpose)).toEqual(['phone']);
    expect(sessions.signIn(tokenOf(phone), 'again')).toEqual({ ok: false, reason: 'used' });
  });

  it('is refused after 5 minutes unused (and stays refused)', () => {
    const { sessions, advance } = sessionsAt(Date.parse('2026-12-05T03:00:00Z'));
    const tab = sessions.mintLink({ ttlMs: SHORT_LINK_MS, purpose: 'tab' });
    const printed = sessions.mintLink();
    advance(SHORT_LINK_MS + 1000);
    expect(sessions.signIn(tokenOf(tab), 'late')).toEqual({ ok: false, reason: 'expired' });
    expect(sessions.signIn(tokenOf(tab), 'late')).toEqual({ ok: false, reason: 'used' });
    expect(sessions.list()).toEqual([]);
    // a link serve or `ce ui-link` printed keeps until used, as before
    expect(sessions.signIn(tokenOf(printed), 'later').ok).toBe(true);
    expect(sessions.list().map((s) => s.purpose)).toEqual(['link']);
  });

  it('is minted only for the operator: an agent (even with operate) is refused', async () => {
    const { sessions } = sessionsAt(Date.now());
    const feature = uiFeature(sessions);
    const create = feature.handlers.ui_link_create as (caller: Caller, input: { for?: 'tab' | 'phone' }) => { url: string; expiresAt: string | null };
    const agent = { name: 'ops-agent', role: 'agent', capabilities: ['read', 'operate'] } as unknown as Caller;
    expect(() => create(agent, { for: 'phone' })).toThrow(/only the operator handles browser UI sign-ins/);
    const operator = { name: 'operator', role: 'operator', capabilities: ['read', 'write', 'approve', 'operate'] } as unknown as Caller;
    const out = create(operator, { for: 'phone' });
    expect(out.expiresAt).not.toBeNull();
    expect(Date.parse(out.expiresAt as string) - Date.now()).toBeLessThanOrEqual(SHORT_LINK_MS);
  });
});
