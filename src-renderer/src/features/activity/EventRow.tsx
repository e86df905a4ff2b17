import type { EventView } from '../../../../src-main/common/handoff-dto';
import { describeEvent } from '../../../../src-main/common/event-text';
import { whenText } from '../../app/time-range';
import { actorOf, subjectText, targetOf, type EventNames, type EventTarget } from './event-text';

/**
 * One event as Activity lists it: when, its kind, who, what it is about (opening it), and the sentence a person
 * reads (common/event-text.ts) in place of its fields.
 */
export function EventRow(props: { event: EventView; names: EventNames; onOpen(target: EventTarget): void }): React.JSX.Element {
  const e = props.event;
  const target = targetOf(e);
  const what = subjectText(e, props.names);
  const who = actorOf(e, props.names);
  const sentence = describeEvent(e, (id) => props.names.names.get(id));
  return (
    <li className="ev-row" data-event-kind={e.kind}>
      <time className="muted" dateTime={e.at} title={e.at}>
        {whenText(e.at)}
      </time>
      <span className="ev-kind">{breakable(e.kind)}</span>
      <span className="ev-actor truncate" title={who}>
        {who}
      </span>
      {target ? (
        <button type="button" className="link ev-subject truncate" title={`${what} (${e.subject ?? ''}): open in ${target.screen}`} onClick={() => props.onOpen(target)}>
          {what}
        </button>
      ) : (
        <span className="ev-subject muted truncate" title={e.subject ?? ''}>
          {what}
        </span>
      )}
      <span className="ev-text" title={sentence}>
        {sentence}
      </span>
    </li>
  );
}

/** A kind (participant.token_rotated) that may break after its dots and underscores, never inside a word. */
function breakable(kind: string): React.ReactNode[] {
  return kind.split(/(?<=[._])/).flatMap((part, i) => (i === 0 ? [part] : [<wbr key={i} />, part]));
}
