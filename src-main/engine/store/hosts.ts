import type Database from 'better-sqlite3';
import type { HostCheck, HostView } from '../../common/methods/hosts';

interface Row {
  alias: string;
  agents: number;
  added_at: string;
  added_by: string;
  last_check: string | null;
}

/** The stored check, or null when there is none or it does not read as one (a check is redone, never guessed). */
function checkOf(text: string | null): HostCheck | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as HostCheck;
    return value && typeof value === 'object' && typeof value.at === 'string' ? value : null;
  } catch {
    return null;
  }
}

export type HostRecord = Omit<HostView, 'configured'>;

function toRecord(row: Row): HostRecord {
  return { alias: row.alias, agents: row.agents === 1, addedAt: row.added_at, addedBy: row.added_by, lastCheck: checkOf(row.last_check) };
}

/** A shell the room placed on a host (host_shells). */
export interface HostShellRecord {
  id: string;
  host: string;
  owner: string;
  nodeAs: string | null;
  /** The shell as the node described it when it opened (JSON). */
  view: string;
  openedAt: string;
}

interface ShellRow {
  id: string;
  host: string;
  owner: string;
  node_as: string | null;
  view: string;
  opened_at: string;
}

/** Host rows and the shells placed on hosts (the hosts feature is their one owner and writer). Callers own the transaction. */
export class HostRepo {
  constructor(private readonly db: Database.Database) {}

  list(): HostRecord[] {
    return (this.db.prepare('SELECT * FROM hosts ORDER BY alias').all() as Row[]).map(toRecord);
  }

  byAlias(alias: string): HostRecord | null {
    const row = this.db.prepare('SELECT * FROM hosts WHERE alias = ?').get(alias) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM hosts').get() as { n: number }).n;
  }

  insert(alias: string, agents: boolean, at: string, by: string): void {
    this.db.prepare('INSERT INTO hosts (alias, agents, added_at, added_by) VALUES (?, ?, ?, ?)').run(alias, agents ? 1 : 0, at, by);
  }

  setAgents(alias: string, agents: boolean): void {
    this.db.prepare('UPDATE hosts SET agents = ? WHERE alias = ?').run(agents ? 1 : 0, alias);
  }

  setCheck(alias: string, check: HostCheck): void {
    this.db.prepare('UPDATE hosts SET last_check = ? WHERE alias = ?').run(JSON.stringify(check), alias);
  }

  shells(): HostShellRecord[] {
    return (this.db.prepare('SELECT * FROM host_shells ORDER BY opened_at, id').all() as ShellRow[]).map((r) => ({ id: r.id, host: r.host, owner: r.owner, nodeAs: r.node_as, view: r.view, openedAt: r.opened_at }));
  }

  placeShell(shell: HostShellRecord): void {
    this.db.prepare('INSERT OR REPLACE INTO host_shells (id, host, owner, node_as, view, opened_at) VALUES (?, ?, ?, ?, ?, ?)').run(shell.id, shell.host, shell.owner, shell.nodeAs, shell.view, shell.openedAt);
  }

  unplaceShell(id: string): void {
    this.db.prepare('DELETE FROM host_shells WHERE id = ?').run(id);
  }

  remove(alias: string): boolean {
    return this.db.prepare('DELETE FROM hosts WHERE alias = ?').run(alias).changes > 0;
  }
}
