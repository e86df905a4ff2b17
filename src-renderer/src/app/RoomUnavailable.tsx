import type { DesktopMessage } from '../../../src-main/common/ipc';

type Unavailable = Extract<DesktopMessage, { t: 'desktop.unavailable' }>;

/** The desktop app could not open its room: why (whose it is, when another process holds it), and a way on. */
export function RoomUnavailable(props: { why: Unavailable; onChooseRoom: () => void }): React.JSX.Element {
  const { why } = props;
  const held = why.holderPid !== null;
  return (
    <div className="room-unavailable" data-testid="room-unavailable">
      <section className="empty empty-error" role="alert">
        <h2>{held ? `This room is open in another process (pid ${why.holderPid})` : 'The room could not open'}</h2>
        <p>
          {held
            ? 'Only one process can hold a room. Use that process (its window, or its endpoint), stop it and restart the app, or open another room here.'
            : 'Open another room, or fix the cause below and restart the app.'}
        </p>
        <button type="button" className="primary" onClick={props.onChooseRoom} autoFocus>
          Open another room…
        </button>
        <details className="room-unavailable-details">
          <summary>What the room said</summary>
          <p className="muted small">{why.message}</p>
        </details>
      </section>
    </div>
  );
}
