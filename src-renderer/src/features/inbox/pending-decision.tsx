import { createContext, useCallback, useContext, useEffect, useRef, useState } from 'react';
import { useRoom } from '../../room-context';
import { describeError } from '../../stores/coalesced-read';

/** How long an approval or rejection can be undone before it is sent to the room. */
export const UNDO_MS = 5000;
/** How long the word on a decision sent (or undone, or an answer sent) stays. */
const NOTE_MS = 8000;

export interface Decision {
  handoffId: string;
  summary: string;
  approved: boolean;
  /** Sends the decision; answers a problem in words, or null once the room took it. */
  send(): Promise<string | null>;
  /** Once sent: what the person should know next (the agent that will not read the comments until started again), or null. */
  after?: () => string | null;
}

type Phase = 'waiting' | 'sending' | 'sent' | 'failed' | 'undone' | 'told';

export interface DecisionNote {
  decision: Decision;
  phase: Phase;
  problem: string | null;
  /** With 'told': the word on something else done in the inbox (an answer sent). */
  text?: string;
}

export interface PendingDecisions {
  note: DecisionNote | null;
  /** The handoff whose decision waits out its undo window (shown as such, and skipped by j/k). */
  pendingId: string | null;
  /** Holds `decision` for UNDO_MS (sending one already held at once), then sends it. */
  schedule(decision: Decision): void;
  /** Takes back the decision still held: nothing reaches the room. */
  undo(): void;
  /** Says `text` where decisions are said (what else the person just did, done). */
  tell(handoffId: string, text: string): void;
}

export const PendingDecisionContext = createContext<PendingDecisions | null>(null);

export function usePendingDecisions(): PendingDecisions | null {
  return useContext(PendingDecisionContext);
}

/** The inbox's one decision in its undo window, and the word on the last one (sent, failed, undone). */
export function useDecisionQueue(onSettled: (note: DecisionNote) => void): PendingDecisions {
  const [note, setNote] = useState<DecisionNote | null>(null);
  const held = useRef<{ decision: Decision; timer: ReturnType<typeof setTimeout> } | null>(null);
  const settled = useRef(onSettled);
  settled.current = onSettled;

  const send = useCallback(async (decision: Decision) => {
    setNote({ decision, phase: 'sending', problem: null });
    const problem = await decision.send();
    const done: DecisionNote = { decision, phase: problem ? 'failed' : 'sent', problem };
    setNote(done);
    settled.current(done);
  }, []);

  const flush = useCallback(() => {
    const h = held.current;
    if (!h) return;
    clearTimeout(h.timer);
    held.current = null;
    void send(h.decision);
  }, [send]);

  const schedule = useCallback(
    (decision: Decision) => {
      flush();
      held.current = { decision, timer: setTimeout(flush, UNDO_MS) };
      setNote({ decision, phase: 'waiting', problem: null });
    },
    [flush],
  );

  const undo = useCallback(() => {
    const h = held.current;
    if (!h) return;
    clearTimeout(h.timer);
    held.current = null;
    const undone: DecisionNote = { decision: h.decision, phase: 'undone', problem: null };
    setNote(undone);
    settled.current(undone);
  }, []);

  // leaving the inbox sends what is held: the person decided, and the undo button is going away
  useEffect(() => flush, [flush]);

  // a word on something done goes after a while; a refusal stays until the next decision
  useEffect(() => {
    if (!note || note.phase === 'waiting' || note.phase === 'sending' || note.phase === 'failed') return;
    const timer = setTimeout(() => setNote((now) => (now === note ? null : now)), NOTE_MS);
    return () => clearTimeout(timer);
  }, [note]);

  const tell = useCallback((handoffId: string, text: string) => {
    if (held.current) return; // the held decision's Undo stays in view
    setNote({ decision: { handoffId, summary: '', approved: false, send: async () => null }, phase: 'told', problem: null, text });
  }, []);

  return { note, pendingId: note?.phase === 'waiting' ? note.decision.handoffId : null, schedule, undo, tell };
}

const verb = (d: Decision) => (d.approved ? 'Approv' : 'Reject');

/**
 * The word after each decision: held with an Undo (u), being sent, sent, refused, or taken back. A merge refused
 * because the work's branch moved after completion offers to re-capture the evidence (handoff_recapture), so the
 * person reviews what the branch holds now before approving it.
 */
export function DecisionToast(props: { queue: PendingDecisions }): React.JSX.Element | null {
  const { note, undo, tell } = props.queue;
  const { client } = useRoom();
  if (!note) return null;
  const { decision: d, phase } = note;
  const what = `“${d.summary}”`;
  const text =
    phase === 'waiting'
      ? `${verb(d)}ing ${what} in ${UNDO_MS / 1000} seconds.`
      : phase === 'sending'
        ? `${verb(d)}ing ${what}…`
        : phase === 'sent'
          ? `${verb(d)}ed ${what}.${d.after?.() ? ` ${d.after()}` : ''}`
          : phase === 'failed'
            ? `Not ${d.approved ? 'approved' : 'rejected'}: ${note.problem ?? 'the room refused it'}`
            : phase === 'told'
              ? (note.text ?? '')
              : `Undone: ${what} was not ${d.approved ? 'approved' : 'rejected'} and still waits for you.`;
  return (
    <div className={`decision-toast toast-${phase}`} role={phase === 'failed' ? 'alert' : 'status'} data-testid="decision-toast" data-phase={phase}>
      <span className="truncate-2">{text}</span>
      {phase === 'waiting' && (
        <button type="button" className="plain" onClick={undo}>
          Undo <kbd>u</kbd>
        </button>
      )}
      {phase === 'failed' && note.problem?.includes('handoff_recapture') && (
        <button
          type="button"
          className="plain"
          data-testid="recapture"
          onClick={() =>
            void client.call('handoff_recapture', { handoffId: d.handoffId }).then(
              () => tell(d.handoffId, `Re-captured ${what}: review its new evidence, then approve again.`),
              (e: unknown) => tell(d.handoffId, describeError(e, 'could not re-capture the evidence')),
            )
          }
        >
          Re-capture the evidence
        </button>
      )}
    </div>
  );
}
