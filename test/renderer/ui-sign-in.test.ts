/**
 * The page's side of the browser sign-in (src-renderer/src/transports/ui-sign-in.ts): the link's token leaves
 * the address at once, is traded once for a secret kept in the tab's own storage, and each refusal is said in
 * words with what to do. The room's side is tested over real HTTP in test/bridge/ui-socket.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { UI_SECRET_KEY } from '../../src-main/common/ui-protocol';
import { SIGNED_IN_AT_KEY, UiSignIn, takeLinkToken, type SignInStore } from '../../src-renderer/src/transports/ui-sign-in';

function store(initial: Record<string, string> = {}): SignInStore & { data: Record<string, string> } {
  const data = { ...initial };
  return { data, getItem: (k) => data[k] ?? null, setItem: (k, v) => void (data[k] = v), removeItem: (k) => void delete data[k] };
}

const answer = (status: number, body: unknown) => async () => ({ ok: status < 300, status, json: async () => body });

describe('the page sign-in', () => {
  it('takes the token out of the address, keeping the rest of it', () => {
    const replaced: string[] = [];
    const token = takeLinkToken({ hash: '#token=cr_abc&view=inbox', pathname: '/ui/', search: '' }, { replaceState: (_s, _t, url) => void replaced.push(String(url)) });
    expect(token).toBe('cr_abc');
    expect(replaced).toEqual(['/ui/#view=inbox']);
    expect(takeLinkToken({ hash: '', pathname: '/ui/', search: '' }, { replaceState: () => undefined })).toBeNull();
  });

  it('trades a link for a secret kept in the tab, and offers it on the socket', async () => {
    const s = store();
    const signIn = new UiSignIn(s, 'cr_link', answer(200, { secret: 'cr_secret', sessionId: 'ui_1' }));
    expect(await signIn.prepare()).toBeNull();
    expect(s.data[UI_SECRET_KEY]).toBe('cr_secret');
    expect(signIn.protocols()).toEqual(['commonroom.ui', 'commonroom.auth.cr_secret']);
  });

  it('says why when the link was used or is not valid, unless the tab is signed in already (a reload of the link)', async () => {
    expect(await new UiSignIn(store(), 'cr_link', answer(401, { error: { reason: 'used' } })).prepare()).toMatch(/already used[\s\S]*ce ui-link/);
    expect(await new UiSignIn(store(), 'cr_link', answer(401, { error: { reason: 'invalid' } })).prepare()).toMatch(/not valid for this room process/);
    expect(await new UiSignIn(store({ [UI_SECRET_KEY]: 'cr_kept' }), 'cr_link', answer(401, { error: { reason: 'used' } })).prepare()).toBeNull();
    expect(await new UiSignIn(store(), null).prepare()).toMatch(/Not signed in/);
    expect(await new UiSignIn(null, 'cr_link').prepare()).toMatch(/no session storage/);
  });

  it('tells a signed-out tab from a room that is just away', async () => {
    const s = store({ [UI_SECRET_KEY]: 'cr_gone' });
    expect(await new UiSignIn(s, null, answer(401, {})).diagnose()).toMatch(/Signed out/);
    expect(s.data[UI_SECRET_KEY]).toBeUndefined();
    const away = store({ [UI_SECRET_KEY]: 'cr_kept' });
    expect(await new UiSignIn(away, null, () => Promise.reject(new Error('refused'))).diagnose()).toBeNull();
    expect(away.data[UI_SECRET_KEY]).toBe('cr_kept');
  });

  it('says the room restarted when it started after the tab signed in, a revoked sign-in otherwise, and again after a reload', async () => {
    const signedIn = Date.parse('2026-12-04T10:00:00Z');
    const restarted = store({ [UI_SECRET_KEY]: 'cr_old', [SIGNED_IN_AT_KEY]: String(signedIn) });
    const said = await new UiSignIn(restarted, null, answer(401, { error: { startedAt: '2026-12-04T10:05:00Z' } })).diagnose();
    expect(said).toMatch(/^The room restarted \(at .+\), which ends every browser sign-in\. Get a new sign-in link with "ce ui-link"/);
    // a reload of the page (no link, no secret) says the same, not a bare "not signed in"
    expect(await new UiSignIn(restarted, null).prepare()).toBe(said);
    const revoked = store({ [UI_SECRET_KEY]: 'cr_old', [SIGNED_IN_AT_KEY]: String(signedIn) });
    expect(await new UiSignIn(revoked, null, answer(401, { error: { startedAt: '2026-12-04T09:00:00Z' } })).diagnose()).toMatch(/^Signed out: this sign-in was revoked/);
    // a new link clears what was said
    await new UiSignIn(restarted, 'cr_link', answer(200, { secret: 'cr_new' })).prepare();
    expect(await new UiSignIn(restarted, null).prepare()).toBeNull();
  });
});
