import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { resolvePaths, type Paths } from '../core/config';
import { EventRepo } from '../store/events';
import { schemaVersionOf } from '../store/migrations';
import { ParticipantRepo } from '../store/participants';
import { TaskRepo } from '../store/tasks';
import { locateRoom, openReaderDatabase, readRunner, type RoomLocation, type RunnerRecord } from './room-files';
import { isAlive } from '../process/process-tree';
import { openDatabase } from '../store/native-binding';

/** Read-only access for the CLI while a room process may be running. Never takes the lock. */
export class RoomReader {
  readonly db: Database.Database;
  readonly participants: ParticipantRepo;
  readonly events: EventRepo;
  readonly tasks: TaskRepo;

  private constructor(
    readonly location: RoomLocation,
    db: Database.Database,
  ) {
    this.db = db;
    this.participants = new ParticipantRepo(db);
    this.events = new EventRepo(db);
    this.tasks = new TaskRepo(db);
  }

  static open(options: { markdown?: string | undefined; paths?: Paths } = {}): RoomReader {
    const paths = options.paths ?? resolvePaths();
    const location = locateRoom(options.markdown, paths, false);
    return new RoomReader(location, openReaderDatabase(location, options.markdown === undefined));
  }

  /** Who holds the room, when a live process does. */
  static holderOf(location: RoomLocation): RunnerRecord | null {
    if (!fs.existsSync(location.databasePath)) return null;
    let db: Database.Database | undefined;
    try {
      db = openDatabase(location.databasePath, { readonly: true, fileMustExist: true, timeout: 1000 });
      const runner = readRunner(db);
      return runner && isAlive(runner.pid) ? runner : null;
    } catch {
      return null;
    } finally {
      db?.close();
    }
  }

  get roomId(): string | null {
    return (this.db.prepare("SELECT value FROM meta WHERE key = 'room_id'").get() as { value: string } | undefined)?.value ?? null;
  }

  get schemaVersion(): number {
    return schemaVersionOf(this.db);
  }

  /**
   * The live room process serving this room, if any. Decided from the holder record and the pid, without
   * touching the lock (a reader must never make a starting writer fail); a stale answer after pid reuse
   * only costs the caller a refused connection.
   */
  runningProcess(): RunnerRecord | null {
    const runner = readRunner(this.db);
    return runner && runner.endpoint !== null && isAlive(runner.pid) ? runner : null;
  }

  close(): void {
    this.db.close();
  }
}
