import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RoomError } from '../../src-main/common/errors';
import { LATEST_SCHEMA } from '../../src-main/engine/store/migrations';
import { Engine } from '../../src-main/engine/engine';
import { Room, RoomReader } from '../../src-main/engine/room/room';
import { EventRepo } from '../../src-main/engine/store/events';
import { makeHome, type TestHome } from '../helpers/env';
import { startServe, stopServe } from '../helpers/serve';

const mode = (p: string) => fs.statSync(p).mode & 0o777;

function roomError(fn: () => unknown): RoomError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RoomError) return error;
    throw error;
  }
  throw new Error('expected a RoomError');
}

describe('the room file', () => {
  let home: TestHome;
  beforeEach(() => {
    home = makeHome();
  });
  afterEach(() => home.cleanup());

  it('creates notes.md and notes.md.commonroom.db beside it, migrated from empty to schema 1', () => {
    const md = path.join(home.root, 'notes.md');
    const room = Room.open({ markdown: md, paths: home.paths });
    room.close();
    expect(fs.readFileSync(md, 'utf8')).toContain('# notes');
    const db = new Database(`${md}.commonroom.db`, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['events', 'meta', 'participants', 'runner']));
    expect(db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: String(LATEST_SCHEMA) });
    db.close();
  });

  it('keeps an existing markdown file as it is and reopens an existing room without migrating again', () => {
    const md = path.join(home.root, 'plan.md');
    fs.writeFileSync(md, 'my own words\n');
    const first = Room.open({ markdown: md, paths: home.paths });
    const id = first.id;
    first.close();
    const second = Room.open({ markdown: md, paths: home.paths });
    expect(second.id).toBe(id);
    expect(second.schemaVersion).toBe(LATEST_SCHEMA);
    second.close();
    expect(fs.readFileSync(md, 'utf8')).toBe('my own words\n');
  });

  it('uses synchronous=FULL on the writer connection', () => {
    const room = Room.open({ markdown: path.join(home.root, 'a.md'), paths: home.paths });
    expect(room.db.pragma('synchronous', { simple: true })).toBe(2);
    room.close();
  });

  it('uses a default room in the data folder when none is given', () => {
    const room = Room.open({ paths: home.paths });
    expect(room.location.markdownPath).toBe(path.join(home.paths.dataDir, 'rooms', 'default.md'));
    room.close();
    expect(fs.existsSync(path.join(home.paths.dataDir, 'rooms', 'default.md.commonroom.db'))).toBe(true);
  });

  it('makes files 0600 and folders 0700', () => {
    const room = Room.open({ paths: home.paths });
    const tokenFile = room.operatorTokenFile;
    const { databasePath, lockPath, markdownPath } = room.location;
    expect(mode(`${databasePath}-wal`)).toBe(0o600);
    expect(mode(`${databasePath}-shm`)).toBe(0o600);
    room.close();
    for (const f of [databasePath, lockPath, markdownPath, tokenFile]) expect(mode(f), f).toBe(0o600);
    for (const d of [home.paths.dataDir, path.dirname(databasePath), home.paths.configDir, path.dirname(tokenFile)]) {
      expect(mode(d), d).toBe(0o700);
    }
  });

  it('refuses a symlink planted at the database path and leaves its target alone', () => {
    const md = path.join(home.root, 'notes.md');
    const victim = path.join(home.root, 'victim.txt');
    fs.writeFileSync(victim, 'precious', { mode: 0o600 });
    fs.symlinkSync(victim, `${md}.commonroom.db`);
    const error = roomError(() => Room.open({ markdown: md, paths: home.paths }));
    expect(error.code).toBe('ROOM_UNSAFE');
    expect(error.message).toMatch(/symlink/);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
  });

  it('refuses a database file other users can read, and says how to fix it', () => {
    const md = path.join(home.root, 'notes.md');
    Room.open({ markdown: md, paths: home.paths }).close();
    fs.chmodSync(`${md}.commonroom.db`, 0o644);
    const error = roomError(() => Room.open({ markdown: md, paths: home.paths }));
    expect(error.code).toBe('ROOM_UNSAFE');
    expect(error.message).toContain('chmod 600');
  });

  it('refuses a room written by a newer schema instead of guessing', () => {
    const md = path.join(home.root, 'notes.md');
    Room.open({ markdown: md, paths: home.paths }).close();
    const db = new Database(`${md}.commonroom.db`);
    db.pragma('user_version = 99');
    db.close();
    expect(roomError(() => Room.open({ markdown: md, paths: home.paths })).code).toBe('ROOM_TOO_NEW');
  });

  it('refuses a room whose folder does not exist, naming it', () => {
    const md = path.join(home.root, 'missing', 'notes.md');
    const error = roomError(() => Room.open({ markdown: md, paths: home.paths }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain(path.dirname(md));
  });

  it('creates the operator with the room; its token (256 bits) authenticates and is stored only hashed', async () => {
    const room = Room.open({ paths: home.paths });
    const engine = new Engine(room);
    const token = fs.readFileSync(room.operatorTokenFile, 'utf8').trim();
    expect(Buffer.from(token.slice(3), 'base64url').length).toBe(32);
    expect(engine.authenticate(token)?.capabilities).toEqual(['read', 'write', 'approve', 'operate']);
    expect(engine.authenticate(`${token.slice(0, -1)}x`)).toBeNull();
    const stored = room.db.prepare('SELECT token_hash FROM participants').all() as { token_hash: string }[];
    expect(stored.map((r) => r.token_hash)).not.toContain(token);
    await engine.close();
  });

  it('issues a new operator token when the token file is gone; the old one stops working', async () => {
    const first = Room.open({ paths: home.paths });
    const oldToken = fs.readFileSync(first.operatorTokenFile, 'utf8').trim();
    fs.rmSync(first.operatorTokenFile);
    first.close();
    const room = Room.open({ paths: home.paths });
    const engine = new Engine(room);
    const newToken = fs.readFileSync(room.operatorTokenFile, 'utf8').trim();
    expect(newToken).not.toBe(oldToken);
    expect(engine.authenticate(oldToken)).toBeNull();
    expect(engine.authenticate(newToken)?.name).toBe('operator');
    await engine.close();
  });

  it('lets a reader open the room while the writer holds it', () => {
    const room = Room.open({ paths: home.paths });
    const reader = RoomReader.open({ paths: home.paths });
    expect(reader.participants.list().map((p) => p.name)).toEqual(['operator']);
    expect(reader.roomId).toBe(room.id);
    reader.close();
    room.close();
  });
});

describe('single writer', () => {
  let home: TestHome;
  beforeEach(() => {
    home = makeHome();
  });
  afterEach(() => home.cleanup());

  it('refuses a second writer at once, naming the holder pid and start time', async () => {
    const serve = await startServe(home);
    try {
      const started = Date.now();
      const error = roomError(() => Room.open({ paths: home.paths }));
      expect(Date.now() - started).toBeLessThan(5_000); // "at once": no busy wait on the lock
      expect(error.code).toBe('ROOM_LOCKED');
      expect(error.details?.pid).toBe(serve.proc.pid);
      expect(error.message).toContain(`pid ${serve.proc.pid}`);
      expect(String(error.details?.startedAt)).toMatch(/^\d{4}-\d\d-\d\dT/);
    } finally {
      await stopServe(serve);
    }
  });

  it('after the holder is killed with SIGKILL, the next start takes the room without cleanup', async () => {
    const first = await startServe(home);
    const killed = await stopServe(first, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const second = await startServe(home);
    try {
      expect(second.output()).toContain('MCP endpoint');
      // the room kept its operator token across the crash
      expect(second.token).toBe(first.token);
    } finally {
      const ended = await stopServe(second);
      expect(ended.code).toBe(0);
    }
  });

  it('a second writer in the same process is refused too', () => {
    const room = Room.open({ paths: home.paths });
    try {
      expect(roomError(() => Room.open({ paths: home.paths })).code).toBe('ROOM_LOCKED');
    } finally {
      room.close();
    }
    Room.open({ paths: home.paths }).close();
  });
});

describe('migrations', () => {
  it('bring a room from every earlier schema (empty included) to the latest, forward only', async () => {
    const { migrate } = await import('../../src-main/engine/store/migrations');
    for (let start = 0; start < LATEST_SCHEMA; start++) {
      const home = makeHome();
      try {
        const md = path.join(home.root, `v${start}.md`);
        const old = new Database(`${md}.commonroom.db`);
        fs.chmodSync(`${md}.commonroom.db`, 0o600);
        expect(migrate(old, 'old', start)).toEqual({ from: 0, to: start });
        old.close();
        const room = Room.open({ markdown: md, paths: home.paths });
        expect(room.schemaVersion).toBe(LATEST_SCHEMA);
        room.close();
      } finally {
        home.cleanup();
      }
    }
  });
});

describe('schema 6 (sweep indexes)', () => {
  it('gives tasks a room already holds their TTL due time, and the sweeps find due rows through indexes', async () => {
    const { migrate } = await import('../../src-main/engine/store/migrations');
    const home = makeHome();
    try {
      const md = path.join(home.root, 'v5.md');
      const old = new Database(`${md}.commonroom.db`);
      fs.chmodSync(`${md}.commonroom.db`, 0o600);
      migrate(old, 'old', 5);
      const insert = old.prepare(
        `INSERT INTO tasks (id, operation, owner, status, created_at, updated_at, ttl_ms, poll_interval_ms, correlation_id)
         VALUES (?, 'handoff.execute', 'alice', ?, '2026-11-30T10:00:00.250Z', '2026-11-30T18:30:00.750Z', ?, 1000, 'c')`,
      );
      insert.run('tk_running', 'working', 60_000);
      insert.run('tk_ended', 'completed', 60_000);
      insert.run('tk_forever', 'working', null);
      old.close();
      const room = Room.open({ markdown: md, paths: home.paths });
      try {
        const due = Object.fromEntries(
          (room.db.prepare('SELECT id, due_at FROM tasks ORDER BY id').all() as { id: string; due_at: number | null }[]).map((r) => [r.id, r.due_at]),
        );
        // running: one TTL after creation; ended: one TTL after its last update; no TTL: never due
        expect(due).toEqual({
          tk_running: Date.parse('2026-11-30T10:00:00.250Z') + 60_000,
          tk_ended: Date.parse('2026-11-30T18:30:00.750Z') + 60_000,
          tk_forever: null,
        });
        const plan = (sql: string) => (room.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join('; ');
        expect(plan("SELECT id FROM tasks WHERE due_at <= 0 AND operation = 'handoff.execute'")).toContain('USING INDEX tasks_due');
        expect(plan('SELECT * FROM graphs WHERE ended_at IS NOT NULL AND spooled_at IS NULL')).toContain('USING INDEX graphs_unspooled');
      } finally {
        room.close();
      }
    } finally {
      home.cleanup();
    }
  });
});

describe('the event ring', () => {
  it('keeps exactly the newest N events, in order, across a reopen', () => {
    const home = makeHome();
    try {
      const md = path.join(home.root, 'ring.md');
      let room = Room.open({ markdown: md, paths: home.paths });
      const ring = new EventRepo(room.db, 5);
      const before = room.events.count();
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) ids.push(ring.append({ at: room.now(), kind: 'test.ring', actor: null, subject: `e${i}`, data: { i } }));
      expect(before).toBeGreaterThan(0); // the operator's creation is an event too
      expect(ring.count()).toBe(5);
      expect(ring.oldestId()).toBe(ids[7]);
      room.close();
      room = Room.open({ markdown: md, paths: home.paths });
      const again = new EventRepo(room.db, 5);
      const next = again.append({ at: room.now(), kind: 'test.ring', actor: null, subject: 'e12' });
      expect(next).toBe((ids[11] as number) + 1);
      const subjects = (room.db.prepare('SELECT subject FROM events ORDER BY id').all() as { subject: string }[]).map((r) => r.subject);
      expect(subjects).toEqual(['e8', 'e9', 'e10', 'e11', 'e12']);
      room.close();
    } finally {
      home.cleanup();
    }
  });
});
