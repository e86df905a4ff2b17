import { useCallback, useEffect, useState } from 'react';
import { dollars, type EnvelopeView, type SpendOutputs } from '../../../../src-main/common/methods/spend';
import type { ShellView } from '../../../../src-main/common/methods/shells';
import { useRoom } from '../../room-context';

type Report = SpendOutputs['spend_report'];
/** Spend arrives without events (a report every few seconds per agent): the card reads it again this often. */
const REFRESH_MS = 10_000;
const tokens = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000).toLocaleString('en')}k` : n.toLocaleString('en'));

function limitsOf(e: EnvelopeView): string {
  return [
    e.maxCostMicroUsd !== null ? dollars(e.maxCostMicroUsd) : null,
    e.maxTokens !== null ? `${tokens(e.maxTokens)} tokens` : null,
    e.maxWallMs !== null ? `${Math.round(e.maxWallMs / 60_000)} min wall-clock` : null,
    e.maxIdleMs !== null ? `${Math.round(e.maxIdleMs / 60_000)} min idle` : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * What the agents spent (spend_report): today and the last 7 days per agent, as their clients report it over
 * OpenTelemetry, and the envelopes with what each stopped at; a ceiling on a running agent is set here
 * (envelope_set), taken off with Clear (envelope_clear). docs/spend.md.
 */
export function SpendCard(props: { agents: ShellView[] }): React.JSX.Element {
  const { client } = useRoom();
  const [report, setReport] = useState<Report | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [target, setTarget] = useState('');
  const [cost, setCost] = useState('');
  const fail = (error: unknown) => setProblem(error instanceof Error ? error.message : String(error));

  const read = useCallback(async () => {
    try {
      setReport(await client.call('spend_report', { days: 7 }));
    } catch (error) {
      fail(error);
    }
  }, [client]);
  useEffect(() => {
    void read();
    const timer = setInterval(() => void read(), REFRESH_MS);
    const off = client.on((e) => (e.kind.startsWith('envelope.') || e.kind.startsWith('agent.')) && void read());
    return () => {
      clearInterval(timer);
      off();
    };
  }, [client, read]);

  const running = props.agents.filter((a) => a.alive && a.agent);
  const picked = running.some((a) => a.id === target) ? target : (running[0]?.id ?? '');

  async function set(e: React.FormEvent): Promise<void> {
    e.preventDefault();
    const usd = Number(cost);
    if (!picked) return;
    if (!Number.isFinite(usd) || usd <= 0) return setProblem('A ceiling is a cost in dollars, more than 0 (e.g. 2.50).');
    setProblem(null);
    try {
      await client.call('envelope_set', { scope: 'agent', target: picked, maxCostUsd: usd });
      setCost('');
    } catch (error) {
      fail(error);
    }
    await read();
  }

  async function clear(env: EnvelopeView): Promise<void> {
    try {
      await client.call('envelope_clear', { scope: env.scope, target: env.target });
    } catch (error) {
      fail(error);
    }
    await read();
  }

  const today = new Date().toISOString().slice(0, 10);
  const todayOf = (who: string) => (report?.rows ?? []).filter((r) => r.participant === who && r.day === today).reduce((n, r) => n + r.costMicroUsd, 0);
  /** An agent run by its participant (and client, while its terminal is there), else by its terminal id. */
  const labelOf = (shellId: string) => {
    const a = props.agents.find((s) => s.id === shellId);
    if (a?.agent) return `${a.agent.participant} (${a.agent.label})`;
    const who = report?.rows.find((r) => r.run === shellId)?.participant;
    return who ? `${who} · terminal ${shellId}` : `terminal ${shellId}`;
  };

  return (
    <section className="card" aria-label="Spend">
      <h2>Spend</h2>
      <p className="muted small">
        Tokens and cost the agents&rsquo; clients report to the room (Claude Code, Codex, Gemini CLI), the last 7 days. Costs are the clients&rsquo; own estimates, not a bill.
      </p>
      {report === null ? (
        <p className="muted">Reading spend…</p>
      ) : report.totals.length === 0 ? (
        <p className="muted">Nothing spent yet: the agents the room starts report their usage here as they work.</p>
      ) : (
        <table className="people spend-table" data-testid="spend">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col" className="num">Today</th>
              <th scope="col" className="num">7 days</th>
              <th scope="col" className="num">Tokens in / out</th>
            </tr>
          </thead>
          <tbody>
            {report.totals.map((t) => (
              <tr key={t.participant} data-participant={t.participant}>
                <td className="truncate" title={t.participant}>
                  {t.participant}
                </td>
                <td className="num" data-label="Today">
                  {dollars(todayOf(t.participant))}
                </td>
                <td className="num" data-label="7 days">
                  {dollars(t.costMicroUsd)}
                </td>
                <td className="num nowrap" data-label="Tokens in / out">
                  {tokens(t.inputTokens)} / {tokens(t.outputTokens)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {report && report.envelopes.length > 0 && (
        <ul className="envelope-list" data-testid="envelopes">
          {report.envelopes.map((e) => (
            <li key={e.id} data-envelope={e.target}>
              <span className="envelope-what truncate" title={`${e.scope} ${e.target}`}>
                {e.scope === 'agent' ? labelOf(e.target) : `${e.scope} ${e.target}`}
              </span>
              <span className="muted small">{limitsOf(e)}</span>
              <span className={`badge ${e.state === 'stopped' ? 'badge-warn' : e.state === 'active' ? 'badge-ok' : 'badge-idle'}`}>{e.state === 'active' ? 'watching' : e.state}</span>
              <button type="button" className="small envelope-clear" onClick={() => void clear(e)} aria-label={`Clear the envelope on ${e.target}`}>
                Clear
              </button>
              {e.stopped && <span className="envelope-stopped small">stopped at {e.stopped.limit}: {e.stopped.text}</span>}
            </li>
          ))}
        </ul>
      )}
      {running.length > 0 ? (
        <form className="envelope-form" onSubmit={(e) => void set(e)}>
          <label htmlFor="envelope-target">Stop</label>
          <select id="envelope-target" value={picked} onChange={(e) => setTarget(e.target.value)}>
            {running.map((a) => (
              <option key={a.id} value={a.id}>
                {a.agent?.participant} ({a.agent?.label})
              </option>
            ))}
          </select>
          <label htmlFor="envelope-cost">at $</label>
          <input id="envelope-cost" type="text" inputMode="decimal" value={cost} placeholder="2.50" size={7} onChange={(e) => setCost(e.target.value)} />
          <button type="submit" className="small">
            Set ceiling
          </button>
        </form>
      ) : (
        <p className="muted small">Start an agent to put a ceiling on it; ce envelope sets one on a handoff or a graph too.</p>
      )}
      {problem && (
        <p className="form-problem" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
