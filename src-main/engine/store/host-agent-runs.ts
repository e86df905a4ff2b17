import type Database from 'better-sqlite3';

/** An agent run the room started on a host, as kept for a room that restarts (store/migrations/019-hostagent2.ts). */
export interface HostAgentRunRecord {
  shellId: string;
  host: string;
  participant: string;
  client: string;
  cwd: string;
  startedAt: string;
  startedBy: string;
  handoffId: string | null;
  forwardPort: number;
  roomPort: number;
  version: string | null;
  /** Its watch's policies, JSON. */
  policy: string;
}

interface Row {
  shell_id: string;
  host: string;
  participant: string;
  client: string;
  cwd: string;
  started_at: string;
  started_by: string;
  handoff_id: string | null;
  forward_port: number;
  room_port: number;
  version: string | null;
  policy: string;
}

/** The host_agent_runs rows (the agents feature is their one owner and writer). Callers own the transaction. */
export class HostAgentRunRepo {
  constructor(private readonly db: Database.Database) {}

  all(): HostAgentRunRecord[] {
    const rows = this.db.prepare('SELECT * FROM host_agent_runs ORDER BY started_at').all() as Row[];
    return rows.map((r) => ({
      shellId: r.shell_id,
      host: r.host,
      participant: r.participant,
      client: r.client,
      cwd: r.cwd,
      startedAt: r.started_at,
      startedBy: r.started_by,
      handoffId: r.handoff_id,
      forwardPort: r.forward_port,
      roomPort: r.room_port,
      version: r.version,
      policy: r.policy,
    }));
  }

  add(r: HostAgentRunRecord): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO host_agent_runs (shell_id, host, participant, client, cwd, started_at, started_by, handoff_id, forward_port, room_port, version, policy)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(r.shellId, r.host, r.participant, r.client, r.cwd, r.startedAt, r.startedBy, r.handoffId, r.forwardPort, r.roomPort, r.version, r.policy);
  }

  /** What changed of a run: the room's port its forward leads to, its client's version, its policies. */
  update(shellId: string, change: { roomPort?: number; version?: string | null; policy?: string }): void {
    if (change.roomPort !== undefined) this.db.prepare('UPDATE host_agent_runs SET room_port = ? WHERE shell_id = ?').run(change.roomPort, shellId);
    if (change.version !== undefined) this.db.prepare('UPDATE host_agent_runs SET version = ? WHERE shell_id = ?').run(change.version, shellId);
    if (change.policy !== undefined) this.db.prepare('UPDATE host_agent_runs SET policy = ? WHERE shell_id = ?').run(change.policy, shellId);
  }

  remove(shellId: string): boolean {
    return this.db.prepare('DELETE FROM host_agent_runs WHERE shell_id = ?').run(shellId).changes > 0;
  }
}
