import { useConnection, useRoom } from '../room-context';

/** Says when the link to the room is down, and what to do if it never came up. */
export function ConnectionBanner(): React.JSX.Element | null {
  const state = useConnection((s) => s.state);
  const everOpen = useConnection((s) => s.everOpen);
  const room = useRoom();
  // a link closed for good is said by the app in place of the screen
  if (state === 'closed' && room.problem()) return null;
  if (state === 'open') return null;
  if (state === 'connecting') return <div className="banner" role="status">Connecting to the room…</div>;
  if (state === 'closed') return <div className="banner banner-error" role="alert">Disconnected from the room. Reload the page to reconnect.</div>;
  return (
    <div className="banner banner-warn" role="status" data-testid="reconnecting">
      {everOpen
        ? 'Reconnecting to the room… what you see may be out of date until it is back.'
        : 'Cannot reach the room. Is `commonroom serve` running?'}
    </div>
  );
}
