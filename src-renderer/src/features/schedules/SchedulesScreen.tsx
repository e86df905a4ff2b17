import { useCallback, useEffect, useState } from 'react';
import { dueInZone, type ScheduleRunView, type ScheduleView } from '../../../../src-main/common/methods/schedules';
import { EmptyState } from '../../app/EmptyState';
import { useRoom } from '../../room-context';
import { AddScheduleForm } from './AddScheduleForm';
import { fromNow, outcomeBadge } from './schedule-text';
import '../../shared/panes.css';
import './schedules.css';

/** The last runs shown per schedule (all of them: "ce schedule runs ID"). */
const RECENT_RUNS = 5;

interface Listed {
  schedule: ScheduleView;
  runs: ScheduleRunView[];
}

/**
 * Schedules (schedule_list/add/remove/runs, `ce schedule`): each with its pattern and zone, its next due time
 * in that zone, and its last runs — ran (with what it started), skipped, missed, failed, each with why. A change
 * made elsewhere (ce, an agent, a due time) shows without a reload: every schedule event rereads the list.
 */
export function SchedulesScreen(): React.JSX.Element {
  const { client } = useRoom();
  const [listed, setListed] = useState<Listed[] | null>(null);
  const [machineTimeZone, setMachineTimeZone] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const read = useCallback(async () => {
    try {
      const out = await client.call('schedule_list', {});
      const withRuns = await Promise.all(out.schedules.map(async (schedule) => ({ schedule, runs: (await client.call('schedule_runs', { scheduleId: schedule.id, limit: RECENT_RUNS })).runs })));
      setMachineTimeZone(out.machineTimeZone);
      setListed(withRuns);
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
  }, [client]);
  useEffect(() => {
    void read();
    return client.on((e) => e.kind.startsWith('schedule.') && void read());
  }, [client, read]);
  // "in 3 h" moves on while the screen is open
  const [, setTick] = useState(0);
  useEffect(() => {
    const t = setInterval(() => setTick((n) => n + 1), 60_000);
    return () => clearInterval(t);
  }, []);

  async function remove(s: ScheduleView): Promise<void> {
    if (!window.confirm(`Remove the schedule "${s.name}"? Nothing more starts on it; a run already started goes on, and its records stay.`)) return;
    try {
      await client.call('schedule_remove', { scheduleId: s.id });
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
    await read();
  }

  return (
    <div className="schedules">
      <section className="card" aria-label="Schedules">
        <h2>Schedules</h2>
        <p className="muted small">
          Graphs and agent tasks the room starts on a cron pattern, as whoever added them, while the room runs. Every due time is recorded: ran, skipped (its previous run was still going), missed
          (the room was not running) or failed.
        </p>
        {problem && (
          <p className="form-problem" role="alert">
            {problem}
          </p>
        )}
        {listed === null ? (
          <p className="muted">Reading schedules…</p>
        ) : listed.length === 0 ? (
          <EmptyState
            title="No schedules yet"
            text="Add one below, or from a terminal:"
            action={
              <p>
                <code>ce schedule add NAME --cron &quot;0 3 * * *&quot; --graph FILE.json</code>
              </p>
            }
          />
        ) : (
          <ul className="schedule-list" data-testid="schedules">
            {listed.map(({ schedule: s, runs }) => (
              <ScheduleItem key={s.id} schedule={s} runs={runs} onRemove={() => void remove(s)} />
            ))}
          </ul>
        )}
      </section>
      <section className="card" aria-label="Add a schedule">
        <h2>Add a schedule</h2>
        {machineTimeZone ? <AddScheduleForm machineTimeZone={machineTimeZone} onAdded={() => void read()} /> : <p className="muted">…</p>}
      </section>
    </div>
  );
}

function ScheduleItem(props: { schedule: ScheduleView; runs: ScheduleRunView[]; onRemove(): void }): React.JSX.Element {
  const s = props.schedule;
  return (
    <li data-schedule={s.id}>
      <div className="schedule-head">
        <strong className="truncate" title={s.name}>
          {s.name}
        </strong>
        <code className="schedule-cron">{s.cron}</code>
        <span className="muted small truncate" title={s.timeZone}>
          {s.timeZone}
        </span>
        <button type="button" className="small schedule-remove" onClick={props.onRemove} aria-label={`Remove ${s.name}`}>
          Remove
        </button>
      </div>
      <div className="schedule-facts small">
        <span className="truncate" title={s.runs}>
          Runs {s.runs}
        </span>
        <span data-testid="next-due">
          Next: {s.nextDueAt ? `${dueInZone(s.nextDueAt, s.timeZone)}, ${fromNow(s.nextDueAt)}` : 'never again'}
        </span>
        <span className="muted">
          {s.catchUp === 'once' ? 'Missed while the room is down: run once on start' : 'Missed while the room is down: skipped'} · by {s.owner}
        </span>
      </div>
      {props.runs.length > 0 ? (
        <ol className="schedule-runs" aria-label={`Last runs of ${s.name}`}>
          {props.runs.map((r) => {
            const badge = outcomeBadge(r);
            return (
              <li key={r.dueAt} data-outcome={r.outcome}>
                <span className={`badge ${badge.tone}`}>{badge.text}</span>
                <span className="run-due">{dueInZone(r.dueAt, s.timeZone)}</span>
                <span className="run-what muted truncate" title={r.reason ?? undefined}>
                  {r.reason ?? (r.graphId ? `graph ${r.graphId}` : r.handoffId ? `agent task ${r.handoffId}` : '')}
                </span>
              </li>
            );
          })}
        </ol>
      ) : (
        <p className="muted small">No due time yet.</p>
      )}
    </li>
  );
}
