import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../../src-main/engine/engine';
import { Room } from '../../../src-main/engine/room/room';
import { BIN_CE, makeHome, type TestHome } from '../../helpers/env';
import { snapshot } from './fixture';

const HOOK = pathToFileURL(path.join(import.meta.dirname, 'fixtures/crash-on-event.mjs')).href;

let home: TestHome;
beforeEach(() => {
  home = makeHome();
});
afterEach(() => home.cleanup());

/** A handoff from alice to bob in the default room, brought to `stage`; the room is closed again afterwards. */
async function prepare(stage: 'accepted' | 'result_ready'): Promise<{ id: string; taskId: string }> {
  const engine = await Engine.start(Room.open({ paths: home.paths }));
  try {
    const op = engine.operator();
    const alice = engine.authenticate((await engine.call(op, 'participant_add', { name: 'alice', capabilities: ['read', 'write'] })).token);
    const bob = engine.authenticate((await engine.call(op, 'participant_add', { name: 'bob', capabilities: ['read', 'write'] })).token);
    if (!alice || !bob) throw new Error('tokens did not authenticate');
    const { handoff } = await engine.call(alice, 'handoff_create', { summary: 'crash me', to: 'bob' });
    await engine.call(bob, 'handoff_accept', { handoffId: handoff.id });
    if (stage === 'result_ready') await engine.call(bob, 'handoff_complete', { handoffId: handoff.id, result: 'the result' });
    return { id: handoff.id, taskId: handoff.taskId };
  } finally {
    await engine.close();
  }
}

/** The real `ce` in a child process that kills itself (SIGKILL) mid-transaction, at the event append of `kind`. */
function ceCrashingAt(kind: string, args: string[]) {
  const marker = path.join(home.root, 'crash-marker.json');
  const r = spawnSync(process.execPath, ['--import', HOOK, BIN_CE, ...args], {
    env: { ...home.env, CRASH_ON_EVENT_KIND: kind, CRASH_MARKER: marker },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { signal: r.signal, stderr: r.stderr, seen: fs.existsSync(marker) ? (JSON.parse(fs.readFileSync(marker, 'utf8')) as unknown) : null };
}

function reopen<T>(fn: (room: Room) => T): T {
  const room = Room.open({ paths: home.paths });
  try {
    return fn(room);
  } finally {
    room.close();
  }
}

describe('a state change and its event are one transaction', () => {
  it('a crash between the approval and its event leaves neither', async () => {
    const { id } = await prepare('result_ready');
    const before = reopen((room) => snapshot(room.db));

    const crash = ceCrashingAt('handoff.approved', ['approve', id]);
    expect(crash.signal, crash.stderr).toBe('SIGKILL');
    // the change had been made inside the open transaction when the process died
    expect(crash.seen).toEqual({ inTransaction: true, handoffStatus: 'approved' });

    reopen((room) => {
      expect(room.db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(snapshot(room.db)).toEqual(before);
      expect(room.db.prepare('SELECT status FROM handoffs WHERE id = ?').pluck().get(id)).toBe('result_ready');
      expect(room.db.prepare("SELECT count(*) FROM events WHERE kind = 'handoff.approved'").pluck().get()).toBe(0);
    });
  });

  it('a crash between a cancellation (handoff and task rows) and its event leaves neither', async () => {
    const { id, taskId } = await prepare('accepted');
    const before = reopen((room) => snapshot(room.db));

    const crash = ceCrashingAt('handoff.cancelled', ['task-cancel', taskId, '--participant', 'alice']);
    expect(crash.signal, crash.stderr).toBe('SIGKILL');
    expect(crash.seen).toEqual({ inTransaction: true, handoffStatus: 'cancelled' });

    reopen((room) => {
      expect(room.db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(snapshot(room.db)).toEqual(before);
      expect(room.db.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(taskId)).toBe('working');
      expect(room.db.prepare('SELECT status FROM handoffs WHERE id = ?').pluck().get(id)).toBe('accepted');
    });
    // and without the crash the same command does it, change and event together
    const r = spawnSync(process.execPath, [BIN_CE, 'task-cancel', taskId, '--participant', 'alice'], { env: home.env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    reopen((room) => {
      expect(room.db.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(taskId)).toBe('cancelled');
      expect(room.db.prepare("SELECT count(*) FROM events WHERE kind = 'handoff.cancelled' AND subject = ?").pluck().get(id)).toBe(1);
    });
  });
});
