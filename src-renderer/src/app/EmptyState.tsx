/** A calm, centred message for a screen with nothing (yet) to show. */
export function EmptyState(props: { title: string; text: string; action?: React.ReactNode; tone?: 'calm' | 'error' }): React.JSX.Element {
  return (
    <section className={`empty ${props.tone === 'error' ? 'empty-error' : ''}`} role={props.tone === 'error' ? 'alert' : 'status'}>
      <h2>{props.title}</h2>
      <p>{props.text}</p>
      {props.action}
    </section>
  );
}
