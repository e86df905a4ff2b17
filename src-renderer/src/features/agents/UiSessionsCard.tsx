import { useCallback, useEffect, useState } from 'react';
import type { UiSessionView } from '../../../../src-main/common/methods/ui';
import { useRoom } from '../../room-context';
import { ConfirmDialog } from '../../shared/ConfirmDialog';
import { Dialog } from '../../shared/Dialog';
import { QrCode } from '../../shared/QrCode';

const PURPOSE: Record<UiSessionView['purpose'], string> = { link: 'a printed link', tab: 'another tab', phone: 'a phone' };

/**
 * The browser tabs signed in to this room as the operator (served by `commonroom serve` only): when each
 * signed in, when it was last used, its browser, what its link was made for; a sign-out ends a tab's session at
 * once. From here the person signs in another tab or a phone: a new one-time link that expires in 5 minutes,
 * opened in a new tab, or shown as a QR code and text — each a new sign-in, listed here and revocable.
 */
export function UiSessionsCard(): React.JSX.Element | null {
  const { client, desktop } = useRoom();
  const [sessions, setSessions] = useState<UiSessionView[] | null>(null);
  const [served, setServed] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [phoneLink, setPhoneLink] = useState<{ url: string; expiresAt: string | null } | null>(null);
  const [signingOut, setSigningOut] = useState<string | null>(null);
  const read = useCallback(async () => {
    try {
      const out = await client.call('ui_session_list', {});
      setSessions(out.sessions);
      setServed(out.served);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  }, [client]);
  useEffect(() => {
    void read();
  }, [read]);
  if (desktop || (sessions !== null && !served)) return null;
  async function mint(purpose: 'tab' | 'phone'): Promise<{ url: string; expiresAt: string | null } | null> {
    try {
      setProblem(null);
      return await client.call('ui_link_create', { for: purpose });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
      return null;
    }
  }
  async function openTab(): Promise<void> {
    const link = await mint('tab');
    if (!link) return;
    // a new browsing context with no opener: the link signs it in, once, in its own storage
    if (!window.open(link.url, '_blank', 'noopener,noreferrer')) setProblem('the browser did not open a new tab (a pop-up blocker?): use "Sign in a phone" to see the link and open it yourself');
    window.setTimeout(() => void read(), 1500);
  }
  async function signOut(id: string): Promise<void> {
    try {
      await client.call('ui_session_revoke', { sessionId: id });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
    await read();
  }
  return (
    <section className="card" aria-label="Browser sign-ins">
      <h2>Browser sign-ins</h2>
      <p className="muted small">
        Tabs signed in to this room as you. Each sign-in link works once; a link made here expires after 5 minutes. Sign-ins end when you sign
        them out or the room process stops.
      </p>
      <div className="card-actions">
        <button type="button" data-testid="open-another-tab" onClick={() => void openTab()}>
          Open in another tab
        </button>
        <button
          type="button"
          data-testid="sign-in-phone"
          onClick={() =>
            void mint('phone').then((link) => {
              if (link) setPhoneLink(link);
            })
          }
        >
          Sign in a phone
        </button>
        <button type="button" className="link-button" onClick={() => void read()}>
          Refresh
        </button>
      </div>
      {sessions === null ? (
        <p className="muted">Reading sign-ins…</p>
      ) : (
        <table className="people ui-sessions" data-testid="ui-sessions">
          <thead>
            <tr>
              <th>Signed in</th>
              <th>Made for</th>
              <th>Last used</th>
              <th>Open tabs</th>
              <th>Browser</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id} data-ui-session={s.id}>
                <td className="nowrap" title={s.createdAt} data-label="Signed in">
                  {new Date(s.createdAt).toLocaleString()}
                </td>
                <td data-label="Made for">{PURPOSE[s.purpose]}</td>
                <td className="nowrap" title={s.lastSeenAt} data-label="Last used">
                  {new Date(s.lastSeenAt).toLocaleTimeString()}
                </td>
                <td data-label="Open tabs">{s.sockets}</td>
                <td data-label="Browser">
                  <span className="truncate" title={s.userAgent}>
                    {s.userAgent || 'unknown'}
                  </span>
                </td>
                <td className="nowrap">
                  <button type="button" className="danger small" onClick={() => setSigningOut(s.id)}>
                    Sign out
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {problem && (
        <p className="form-problem" role="alert">
          {problem}
        </p>
      )}
      {signingOut && (
        <ConfirmDialog
          title="Sign this browser tab out?"
          message="Its tabs disconnect at once; to come back it must open a new sign-in link."
          confirm="Sign out"
          onConfirm={() => void signOut(signingOut)}
          onClose={() => setSigningOut(null)}
        />
      )}
      {phoneLink && (
        <Dialog
          title="Sign in a phone"
          testId="phone-link"
          onClose={() => {
            setPhoneLink(null);
            void read();
          }}
        >
          <QrCode text={phoneLink.url} label="QR code of the sign-in link" />
          <p className="small">
            Scan it, or open this link on the phone. It signs in one browser, once
            {phoneLink.expiresAt ? `, until ${new Date(phoneLink.expiresAt).toLocaleTimeString()}` : ''}. Keep it private: it signs in as you.
          </p>
          <code className="sign-in-link" data-testid="phone-link-url">
            {phoneLink.url}
          </code>
          <p className="muted small">
            The room listens on this computer only ({new URL(phoneLink.url).host}): a phone reaches it through a tunnel you set up, such as{' '}
            <code>adb reverse tcp:{new URL(phoneLink.url).port || '80'} tcp:{new URL(phoneLink.url).port || '80'}</code> or <code>ssh -L</code>.
          </p>
          <div className="dialog-actions">
            <button type="button" onClick={() => void navigator.clipboard?.writeText(phoneLink.url)}>
              Copy link
            </button>
            <button
              type="button"
              className="primary"
              autoFocus
              onClick={() => {
                setPhoneLink(null);
                void read();
              }}
            >
              Done
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}
