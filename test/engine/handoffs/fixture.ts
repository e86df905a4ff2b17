import path from 'node:path';
import type Database from 'better-sqlite3';
import type { MethodInput, MethodName, MethodOutputs } from '../../../src-main/common/contract';
import type { Capability } from '../../../src-main/common/capabilities';
import type { Caller } from '../../../src-main/common/dto';
import { RoomError } from '../../../src-main/common/errors';
import { Engine } from '../../../src-main/engine/engine';
import { Room } from '../../../src-main/engine/room/room';
import { makeHome, type TestHome } from '../../helpers/env';

/** A real room on disk with a clock the test moves, an engine, and named participants. */
export interface Bench {
  home: TestHome;
  engine: Engine;
  clock: { ms: number; advance(ms: number): void };
  op: Caller;
  add(name: string, can: Capability[]): Promise<Caller>;
  call<M extends MethodName>(caller: Caller, method: M, input: MethodInput<M>): Promise<MethodOutputs[M]>;
  close(): Promise<void>;
}

export async function openBench(): Promise<Bench> {
  const home = makeHome();
  const clock = {
    ms: Date.parse('2026-01-01T00:00:00.000Z'),
    advance(ms: number) {
      this.ms += ms;
    },
  };
  const room = Room.open({ markdown: path.join(home.root, 'room.md'), paths: home.paths, clock: () => new Date(clock.ms) });
  const engine = await Engine.start(room);
  const op = engine.operator();
  return {
    home,
    engine,
    clock,
    op,
    async add(name, can) {
      const created = await engine.call(op, 'participant_add', { name, capabilities: can });
      const caller = engine.authenticate(created.token);
      if (!caller) throw new Error('new token did not authenticate');
      return caller;
    },
    call: (caller, method, input) => engine.call(caller, method, input),
    async close() {
      await engine.close();
      home.cleanup();
    },
  };
}

/** Every row of the handoff, task and event tables: "nothing written" means this did not change at all. */
export function snapshot(db: Database.Database): { handoffs: unknown[]; tasks: unknown[]; events: unknown[] } {
  return {
    handoffs: db.prepare('SELECT * FROM handoffs ORDER BY id').all(),
    tasks: db.prepare('SELECT * FROM tasks ORDER BY id').all(),
    events: db.prepare('SELECT * FROM events ORDER BY id').all(),
  };
}

export function counts(db: Database.Database): { handoffs: number; tasks: number; events: number } {
  const n = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return { handoffs: n('handoffs'), tasks: n('tasks'), events: n('events') };
}

/** Runs a call that must be refused; returns the RoomError and checks that no row changed. */
export async function refused(db: Database.Database, fn: () => Promise<unknown>): Promise<RoomError> {
  const before = snapshot(db);
  let error: unknown;
  try {
    await fn();
  } catch (e) {
    error = e;
  }
  if (!(error instanceof RoomError)) throw new Error(`expected a RoomError, got ${String(error)}`);
  const after = snapshot(db);
  if (JSON.stringify(after) !== JSON.stringify(before)) throw new Error(`a refused call wrote something: ${error.message}`);
  return error;
}
