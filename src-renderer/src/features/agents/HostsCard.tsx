import { useCallback, useEffect, useState } from 'react';
import type { HostCheck, HostView } from '../../../../src-main/common/methods/hosts';
import { useRoom } from '../../room-context';
import { ConfirmDialog } from '../../shared/ConfirmDialog';

/**
 * The machines work may run on besides this one: the person's SSH hosts, by their alias in ~/.ssh/config
 * (host_list/add/check/remove, `ce host`). Adding one puts it on the room's list; Check connects with the
 * person's keys and says what the host lacks and how to install it.
 */
export function HostsCard(): React.JSX.Element {
  const { client } = useRoom();
  const [hosts, setHosts] = useState<HostView[] | null>(null);
  const [available, setAvailable] = useState<string[]>([]);
  const [sshConfig, setSshConfig] = useState('');
  const [picked, setPicked] = useState('');
  const [agents, setAgents] = useState(true);
  const [checking, setChecking] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  /** The host the person is asked about removing. */
  const [removing, setRemoving] = useState<string | null>(null);
  const fail = (error: unknown) => setProblem(error instanceof Error ? error.message : String(error));

  const read = useCallback(async () => {
    try {
      const out = await client.call('host_list', {});
      setHosts(out.hosts);
      setAvailable(out.available);
      setSshConfig(out.sshConfig);
      setPicked((p) => (p && out.available.includes(p) ? p : (out.available[0] ?? '')));
    } catch (error) {
      fail(error);
    }
  }, [client]);
  useEffect(() => {
    void read();
    // a change made elsewhere (ce host, another window) shows without a reload
    return client.on((e) => e.kind.startsWith('host.') && void read());
  }, [client, read]);

  async function add(e: React.FormEvent): Promise<void> {
    e.preventDefault();
    if (!picked) return;
    setProblem(null);
    try {
      await client.call('host_add', { alias: picked, agents });
    } catch (error) {
      fail(error);
    }
    await read();
  }

  async function check(alias: string): Promise<void> {
    setChecking(alias);
    setProblem(null);
    try {
      await client.call('host_check', { alias });
    } catch (error) {
      fail(error);
    }
    setChecking(null);
    await read();
  }

  async function remove(alias: string): Promise<void> {
    try {
      await client.call('host_remove', { alias });
    } catch (error) {
      fail(error);
    }
    await read();
  }

  return (
    <section className="card" aria-label="Hosts">
      <h2>Hosts</h2>
      <p className="muted small">
        Other machines work may run on, reached over SSH with your own keys: each is an alias of your SSH configuration
        {sshConfig ? (
          <>
            {' '}
            (<code>{sshConfig}</code>)
          </>
        ) : null}
        . The room keeps only the alias, never asks for a password and never accepts a new host key for you.
      </p>
      {hosts === null ? (
        <p className="muted">Reading hosts…</p>
      ) : hosts.length === 0 ? (
        <p className="muted">No hosts yet.</p>
      ) : (
        <ul className="host-list" data-testid="hosts">
          {hosts.map((h) => (
            <li key={h.alias} data-host={h.alias}>
              <div className="host-head">
                <strong className="truncate" title={h.alias}>
                  {h.alias}
                </strong>
                <span className={`badge ${stateClass(h.lastCheck)}`}>{stateText(h.lastCheck)}</span>
                {h.link?.reachable === false && (
                  <span className="badge badge-warn" data-testid="host-link" title={`${h.link.error ?? 'the connection closed'}: its shells and stages go on there, unknown here until it is back`}>
                    unreachable now
                  </span>
                )}
                <span className="muted small">{h.agents ? 'agents may use it' : 'you only'}</span>
                {!h.configured && <span className="form-problem small">no longer in your SSH configuration</span>}
                <span className="host-actions">
                  <button type="button" className="small" disabled={checking !== null} onClick={() => void check(h.alias)}>
                    {checking === h.alias ? 'Checking…' : 'Check'}
                  </button>
                  <button type="button" className="small" onClick={() => setRemoving(h.alias)} aria-label={`Remove ${h.alias}`}>
                    Remove
                  </button>
                </span>
              </div>
              {h.lastCheck && <CheckDetails check={h.lastCheck} />}
            </li>
          ))}
        </ul>
      )}
      {available.length > 0 ? (
        <form className="host-add" onSubmit={(e) => void add(e)}>
          <label htmlFor="host-alias">SSH host</label>
          <select id="host-alias" value={picked} onChange={(e) => setPicked(e.target.value)}>
            {available.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
          <label className="inline">
            <input type="checkbox" checked={agents} onChange={(e) => setAgents(e.target.checked)} /> agents may use it
          </label>
          <button type="submit" className="small">
            Add host
          </button>
        </form>
      ) : (
        hosts !== null && (
          <p className="muted small">
            Every host of your SSH configuration is here. Add a <code>Host NAME</code> entry there to add another.
          </p>
        )
      )}
      {problem && (
        <p className="form-problem" role="alert">
          {problem}
        </p>
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing} from the room?`}
          message="No new work is placed on it; nothing on the host is touched."
          confirm="Remove host"
          onConfirm={() => void remove(removing)}
          onClose={() => setRemoving(null)}
        />
      )}
    </section>
  );
}

function stateText(check: HostCheck | null): string {
  if (!check) return 'not checked';
  if (!check.reachable) return 'not reachable';
  return check.ready ? 'ready' : 'not ready';
}

function stateClass(check: HostCheck | null): string {
  if (!check) return 'badge-idle';
  if (!check.reachable) return 'badge-warn';
  return check.ready ? 'badge-ok' : 'badge-warn';
}

function CheckDetails(props: { check: HostCheck }): React.JSX.Element {
  const { check } = props;
  if (!check.reachable) {
    return (
      <p className="small host-error" data-testid="host-error">
        {check.error}
      </p>
    );
  }
  return (
    <div className="host-check small">
      <p className="muted">
        {check.os} {check.arch} · checked {new Date(check.at).toLocaleString()}
      </p>
      <ul className="host-tools">
        {check.tools.map((t) => (
          <li key={t.name}>
            <span className="host-tool-name">{t.name}</span> {t.path ? <code title={t.path}>{t.version ?? t.path}</code> : <span className="muted">not found</span>}
          </li>
        ))}
      </ul>
      {check.missing.length > 0 && (
        <ul className="host-missing" data-testid="host-missing">
          {check.missing.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
