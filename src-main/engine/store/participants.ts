import fs from 'node:fs';
import type Database from 'better-sqlite3';
import type { Capability } from '../../common/capabilities';
import { CAPABILITIES } from '../../common/capabilities';
import type { Caller, ParticipantView } from '../../common/dto';

interface Row {
  id: number;
  name: string;
  role: 'operator' | 'agent';
  capabilities: string;
  token_hash: string;
  created_at: string;
  revoked_at: string | null;
  writable_folders: string;
}

export interface ParticipantRecord extends ParticipantView {
  id: number;
  tokenHash: string;
}

function toRecord(row: Row): ParticipantRecord {
  const caps = row.capabilities.split(',').filter((c): c is Capability => (CAPABILITIES as readonly string[]).includes(c));
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    capabilities: caps,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    tokenHash: row.token_hash,
    writableFolders: foldersOf(row.writable_folders),
  };
}

/** The stored JSON array of folders (anything else reads as none: a widening is never guessed at). */
function foldersOf(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((f): f is string => typeof f === 'string') : [];
  } catch {
    return [];
  }
}

export function toView(record: ParticipantRecord): ParticipantView {
  return {
    name: record.name,
    role: record.role,
    capabilities: [...record.capabilities],
    createdAt: record.createdAt,
    revokedAt: record.revokedAt,
    writableFolders: [...record.writableFolders],
  };
}

/** Who a participant is when it calls: the one record → caller conversion (engine, features, CLI acting-as). */
export function toCaller(record: ParticipantRecord): Caller {
  return { name: record.name, role: record.role, capabilities: record.capabilities };
}

/**
 * Participant rows. Callers own the transaction.
 *
 * A room's writer is the only process that changes these rows (the room lock), so it keeps the live records
 * it has looked up by token hash (and by name): every request authenticates, and the lookup was a query per call. Any write
 * here (insert, token reissue, revoke) empties the cache before it runs, and the cache is filled only outside
 * a transaction (a row read inside one might still roll back), so a revoked token is refused on the very next
 * request as before. A reader of a room another process writes (`cacheTokens: false`) always asks SQLite.
 */
export class ParticipantRepo {
  /** Live records by token hash: at most one per live participant (only hits are kept). */
  private readonly byToken = new Map<string, Readonly<ParticipantRecord>>();
  /** Records by name (revoked ones too: the revocation guard asks by name on every call of an agent). */
  private readonly named = new Map<string, ParticipantRecord>();

  constructor(
    private readonly db: Database.Database,
    private readonly cacheTokens = false,
  ) {}

  /** A copy of the record each time (callers own what they get); kept like the token lookups, under the same rules. */
  byName(name: string): ParticipantRecord | null {
    let record = this.named.get(name);
    if (!record) {
      const row = this.db.prepare('SELECT * FROM participants WHERE name = ?').get(name) as Row | undefined;
      if (!row) return null;
      record = toRecord(row);
      if (this.cacheTokens && !this.db.inTransaction) this.named.set(name, record);
    }
    return { ...record, capabilities: [...record.capabilities], writableFolders: [...record.writableFolders] };
  }

  /** The live participant holding a token (by its hash); the record is frozen (it may be shared between calls). */
  byTokenHash(hash: string): Readonly<ParticipantRecord> | null {
    const cached = this.byToken.get(hash);
    if (cached) return cached;
    const row = this.db.prepare('SELECT * FROM participants WHERE token_hash = ? AND revoked_at IS NULL').get(hash) as
      | Row
      | undefined;
    if (!row) return null;
    const record = toRecord(row);
    Object.freeze(record.capabilities);
    Object.freeze(record.writableFolders);
    Object.freeze(record);
    if (this.cacheTokens && !this.db.inTransaction) this.byToken.set(hash, record);
    return record;
  }

  operator(): ParticipantRecord | null {
    const row = this.db.prepare("SELECT * FROM participants WHERE role = 'operator' ORDER BY id LIMIT 1").get() as
      | Row
      | undefined;
    return row ? toRecord(row) : null;
  }

  list(): ParticipantRecord[] {
    return (this.db.prepare('SELECT * FROM participants ORDER BY id').all() as Row[]).map(toRecord);
  }

  countLive(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM participants WHERE revoked_at IS NULL').get() as { n: number }).n;
  }

  insert(p: { name: string; role: 'operator' | 'agent'; capabilities: readonly Capability[]; tokenHash: string; at: string }): void {
    this.forget();
    this.db
      .prepare('INSERT INTO participants (name, role, capabilities, token_hash, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(p.name, p.role, p.capabilities.join(','), p.tokenHash, p.at);
  }

  setTokenHash(id: number, tokenHash: string): void {
    this.forget();
    this.db.prepare('UPDATE participants SET token_hash = ? WHERE id = ?').run(tokenHash, id);
  }

  /** A revoked participant added again: its row (and so its history) is kept, with new capabilities and token (and no wider folders). */
  reinstate(id: number, capabilities: readonly Capability[], tokenHash: string): void {
    this.forget();
    this.db.prepare("UPDATE participants SET revoked_at = NULL, capabilities = ?, token_hash = ?, writable_folders = '[]' WHERE id = ?").run(capabilities.join(','), tokenHash, id);
  }

  revoke(id: number, at: string): void {
    this.forget();
    this.db.prepare('UPDATE participants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, id);
  }

  /**
   * The folders the person let `name`'s shells and stages write besides the usual ones (participant_folders),
   * as stored: absolute, real paths; none for an unknown name. participant-folders.ts's `writableFoldersFor`
   * gives those still there, for a launch.
   */
  writableFolders(name: string): string[] {
    return this.byName(name)?.writableFolders ?? [];
  }

  setWritableFolders(id: number, folders: readonly string[]): void {
    this.forget();
    this.db.prepare('UPDATE participants SET writable_folders = ? WHERE id = ?').run(JSON.stringify(folders), id);
  }

  /** Every write empties both caches before it runs. */
  private forget(): void {
    this.byToken.clear();
    this.named.clear();
  }
}

/** `name`'s extra writable folders that are still real folders now (a folder removed or made a link since is left out). */
export function writableFoldersFor(participants: ParticipantRepo, name: string): string[] {
  return participants.writableFolders(name).filter((folder) => {
    try {
      return fs.lstatSync(folder).isDirectory() && fs.realpathSync(folder) === folder;
    } catch {
      return false;
    }
  });
}
