import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RoomInfo } from '../../src-main/common/dto';
import type { GraphView, StageView } from '../../src-main/common/methods/graphs';
import type { RoomError } from '../../src-main/common/errors';
import { Engine } from '../../src-main/engine/engine';
import { Room } from '../../src-main/engine/room/room';
import { canMountTmpfs } from '../soak/disk';
import { makeHome, type TestHome } from '../helpers/env';
import { openBench } from '../engine/graphs/graph-helpers';

/**
 * A full disk under a running room, for real: the room lives on a 4 MiB tmpfs (root and mount(8) needed; where
 * the machine does not allow it vitest reports the test skipped). The test fills the disk itself while a stage
 * prints, then frees it, and checks what a person who left agents running overnight finds in the morning.
 */
const TMPFS = canMountTmpfs();

/** Writes zeros into `file` until the disk says it is full. */
function fillDisk(file: string): void {
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    fs.closeSync(fd);
  }
  // the last, smaller blocks too, so not even a page is left
  const small = fs.openSync(file, 'a');
  try {
    for (;;) fs.writeSync(small, Buffer.alloc(512));
  } catch {
    // full
  } finally {
    fs.closeSync(small);
  }
}

type GraphStatus = { graph: GraphView; stages: StageView[] };

const callError = async (p: Promise<unknown>): Promise<RoomError> => {
  try {
    await p;
  } catch (error) {
    return error as RoomError;
  }
  throw new Error('the call succeeded on a full disk');
};

describe.skipIf(!TMPFS)('a full disk under a running room (4 MiB tmpfs)', () => {
  let home: TestHome;
  let mnt: string;
  let engine: Engine;
  const logged: string[] = [];

  beforeAll(async () => {
    home = makeHome();
    mnt = path.join(home.root, 'small');
    fs.mkdirSync(mnt);
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0700', 'tmpfs', mnt]).status).toBe(0);
    engine = await Engine.start(Room.open({ markdown: path.join(mnt, 'room.md'), paths: home.paths }));
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      logged.push(args.map((a) => (a instanceof Error ? `${a.message}\n${a.stack ?? ''}` : String(a))).join(' '));
    });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await engine?.close();
    spawnSync('umount', ['-l', mnt]);
    home?.cleanup();
  });

  it('a stage whose log cannot be written fails DISK_FULL; writes are refused clearly; the runner says it is degraded, then recovers', async () => {
    const op = engine.operator();
    const go = path.join(home.root, 'go'); // outside the small disk: the signal must not need space on it
    const before = (await engine.call(op, 'handoff_create', { summary: 'acknowledged before the disk filled' })).handoff.id;
    const { graphId } = await engine.call(op, 'tasks_run', {
      name: 'full disk',
      stages: [
        // prints once the disk is full, then would sleep for ten minutes: only the runner can end it early
        { id: 'talk', command: `while [ ! -e ${go} ]; do sleep 0.05; done; for i in $(seq 1 3000); do echo "line $i of a log that no longer fits"; done; exec sleep 600` },
        { id: 'after', command: 'echo after', dependsOn: ['talk'] },
      ],
    });
    await expect.poll(async () => ((await engine.call(op, 'tasks_status', { graphId })) as GraphStatus).stages[0]?.state, { timeout: 20_000 }).toBe('running');

    fillDisk(path.join(mnt, 'ballast'));
    fs.writeFileSync(go, '');

    // the stage's exit cannot be committed while the disk is full: the runner says so instead of failing silently
    await expect
      .poll(async () => ((await engine.call(op, 'room_info', {})) as RoomInfo).health, { timeout: 30_000 })
      .toMatchObject({ state: 'degraded', problems: expect.arrayContaining([expect.objectContaining({ area: 'graphs', code: 'DISK_FULL' })]) });
    // reads keep working
    expect((await engine.call(op, 'tasks_status', { graphId })).graph.state).toBe('running');
    // a write is refused with the code and the folder to free space in, never an internal error or a stack
    const refused = await callError(engine.call(op, 'handoff_create', { summary: 'written while the disk is full' }));
    expect(refused.code).toBe('DISK_FULL');
    expect(refused.message).toBe(`the disk holding the room (${mnt}) is full: free space on it, then try again (this change was not made)`);
    const refusedRun = await callError(engine.call(op, 'tasks_run', { stages: [{ id: 'x', command: 'true' }] }));
    expect(refusedRun.code).toBe('DISK_FULL');

    // the stage's own output hit the full disk (on a loaded machine an earlier commit — the attempt's pid — can
    // make the room degraded before the stage has printed anything; freeing the disk then would let it print)
    await expect.poll(() => logged.some((l) => l.includes(`${graphId}/talk.log failed (ENOSPC)`)), { timeout: 30_000 }).toBe(true);
    fs.rmSync(path.join(mnt, 'ballast'));

    // space is back: the graph ends by itself (the tick's backoff is at most 15 s; a loaded CI box needs more
    // than one period to end the stage's tree and commit), and says why
    let ended = (await engine.call(op, 'tasks_status', { graphId })) as GraphStatus;
    await expect
      .poll(async () => {
        ended = (await engine.call(op, 'tasks_status', { graphId })) as GraphStatus;
        return ended.graph.state;
      }, { timeout: 90_000, interval: 500 })
      .toBe('failed');
    const [talk, after] = ended.stages;
    expect(talk).toMatchObject({ id: 'talk', state: 'failed', errorCode: 'DISK_FULL' });
    expect(talk?.message).toContain(`its log could not be written (no space left on the disk holding ${path.join(mnt, 'room.md.commonroom.d', 'logs', graphId)}: free space there, then run the graph again)`);
    expect(after).toMatchObject({ id: 'after', state: 'skipped', errorCode: 'UPSTREAM_FAILED' });
    expect(((await engine.call(op, 'room_info', {})) as RoomInfo).health).toEqual({ state: 'ok' });

    // the log's tail says that output went missing
    const log = await engine.call(op, 'tasks_status', { graphId, stageId: 'talk', maxBytes: 65_536 });
    const runnerNotes = (log as { log: { records: { stream: string; text: string }[] } }).log.records.filter((r) => r.stream === 'runner').map((r) => r.text);
    expect(runnerNotes.join('')).toMatch(/\[\d+ bytes of output were not logged: writing this log failed \(ENOSPC\)\]/);

    // writes work again, and nothing acknowledged was lost
    const later = await engine.call(op, 'handoff_create', { summary: 'after space came back' });
    expect(later.created).toBe(true);
    const db = new Database(path.join(mnt, 'room.md.commonroom.db'), { readonly: true, fileMustExist: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.prepare('SELECT summary FROM handoffs WHERE id = ?').get(before)).toEqual({ summary: 'acknowledged before the disk filled' });
      expect(db.prepare('SELECT count(*) AS n FROM handoffs WHERE summary = ?').get('written while the disk is full')).toEqual({ n: 0 });
    } finally {
      db.close();
    }

    // the log: a line when the failure started and one when it ended, never a stack trace per retry
    const diskLines = logged.filter((l) => l.includes('DISK_FULL') || l.includes('ENOSPC'));
    expect(diskLines.length).toBeGreaterThan(0);
    expect(diskLines.length).toBeLessThanOrEqual(4);
    expect(logged.filter((l) => /\n\s+at /.test(l))).toEqual([]);
    expect(logged.some((l) => l.startsWith('[graphs] stage changes are applied again'))).toBe(true);
  }, 180_000);
});

describe('a stage log that cannot be written, on any Linux machine (write failures injected at the fs boundary)', () => {
  it('ends the stage with LOG_WRITE_FAILED and the reason, instead of running on unlogged', async () => {
    const b = await openBench();
    const realWrite = fs.writeSync;
    try {
      const { graphId } = await b.run({ stages: [{ id: 'talk', command: `echo first; while [ ! -e ${b.dir}/go ]; do sleep 0.05; done; echo second; exec sleep 600` }] });
      await expect.poll(() => b.logText(graphId, 'talk'), { timeout: 20_000 }).toContain('first');
      // from now on every write to this graph's logs fails as a broken device would (EIO); the database is untouched
      const spy = vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, ...rest: unknown[]) => {
        const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
        if (target.includes(`${graphId}${path.sep}`)) throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
        return (realWrite as (...a: unknown[]) => number)(fd, ...rest);
      }) as typeof fs.writeSync);
      try {
        fs.writeFileSync(path.join(b.dir, 'go'), '');
        const ended = await b.waitEnded(graphId, 30_000);
        expect(ended.stages[0]).toMatchObject({ state: 'failed', errorCode: 'LOG_WRITE_FAILED' });
        expect(ended.stages[0]?.message).toMatch(/its log could not be written \(EIO writing .*talk\.log: EIO: i\/o error, write\)/);
      } finally {
        spy.mockRestore();
      }
    } finally {
      await b.close();
    }
  }, 60_000);
});
