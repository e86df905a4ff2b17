import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RoomError } from '../../../src-main/common/errors';
import { readLogSlice, StageLogWriter, sliceLog } from '../../../src-main/engine/graphs/logs/stage-log';
import { isAlive } from '../../../src-main/engine/process/process-tree';
import { openBench, type GraphBench } from './graph-helpers';
import { waitForPidFile } from '../../helpers/env';

let b: GraphBench;
beforeAll(async () => {
  b = await openBench();
});
afterAll(async () => {
  await b.close();
});

describe('stage logs are private files', () => {
  it('refuses a symlink planted at the log path, and a file that is already there', () => {
    const dir = fs.mkdtempSync(path.join(b.home.root, 'logs-'));
    const victim = path.join(dir, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    const link = path.join(dir, 'stage.log');
    fs.symlinkSync(victim, link);
    expect(() => StageLogWriter.create(link, 1024, () => 'now')).toThrow(RoomError);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
    const wide = path.join(dir, 'wide.log');
    fs.writeFileSync(wide, '', { mode: 0o644 });
    expect(() => StageLogWriter.create(wide, 1024, () => 'now')).toThrow(/chmod 600|already exists/);
  });

  it('caps a log and says so; a torn last record is dropped, not misparsed', () => {
    const file = path.join(b.home.root, 'capped.log');
    const w = StageLogWriter.create(file, 400, () => 't');
    for (let i = 0; i < 50; i++) w.write('stdout', `line ${i}\n`);
    w.close();
    const buf = fs.readFileSync(file);
    expect(buf.length).toBeLessThanOrEqual(400 + 200);
    const slice = sliceLog(buf, 0, 65536, false);
    expect(slice.records.at(-1)?.text).toMatch(/log reached its cap of 400 bytes/);
    const torn = Buffer.concat([buf, Buffer.from('{"q":99,"s":"o","t":"t","d":"half')]);
    expect(sliceLog(torn, 0, 65536, false).records.map((r) => r.seq)).toEqual(slice.records.map((r) => r.seq));
  });

  it('reading a slice from the file touches only a window, and answers exactly what reading it whole does', () => {
    const file = path.join(b.home.root, 'window.log');
    const w = StageLogWriter.create(file, 1 << 20, () => 't');
    for (let i = 0; i < 300; i++) w.write(i % 3 === 0 ? 'stderr' : 'stdout', `${'x'.repeat(i % 50)} ${i} "quoted" ünïcode\n`);
    w.write('stdout', 'y'.repeat(9000)); // longer than one record: split, each piece still whole
    w.close();
    const whole = fs.readFileSync(file);
    for (const maxBytes of [1, 50, 333, 4096, 65536]) {
      expect(readLogSlice(file, undefined, maxBytes)).toEqual(sliceLog(whole, undefined, maxBytes, false));
      for (const cursor of [0, 1, 77, 5000, whole.length - 10, whole.length, whole.length + 5]) {
        expect(readLogSlice(file, cursor, maxBytes), `cursor ${cursor} max ${maxBytes}`).toEqual(sliceLog(whole, cursor, maxBytes, false));
      }
    }
    // following the cursor from 0 reads every record once, in order
    const seqs: number[] = [];
    let cursor = 0;
    for (let i = 0; i < 10_000; i++) {
      const r = readLogSlice(file, cursor, 500);
      seqs.push(...r.records.map((x) => x.seq));
      cursor = r.cursor;
      if (!r.more) break;
    }
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(seqs.length).toBe(300 + 3);
  });

  it('keeps a UTF-8 character split across chunks whole', () => {
    const file = path.join(b.home.root, 'utf8.log');
    const w = StageLogWriter.create(file, 4096, () => 't');
    const bytes = Buffer.from('é€😀');
    for (let i = 0; i < bytes.length; i++) w.writeBytes('stdout', bytes.subarray(i, i + 1));
    w.close();
    expect(sliceLog(fs.readFileSync(file), 0, 4096, false).records.map((r) => r.text).join('')).toBe('é€😀');
  });
});

describe('runtime', () => {
  it('a tty stage runs in a terminal and its output reaches the log', async () => {
    const out = await b.run({ stages: [{ id: 'term', command: '[ -t 1 ] && echo "on a tty: $(tput cols 2>/dev/null || echo ?)"', tty: true }] });
    const end = await b.waitEnded(out.graphId);
    expect(end.stages[0]).toMatchObject({ state: 'completed' });
    expect(await b.logText(out.graphId, 'term')).toMatch(/on a tty/);
  });

  it('tty stages leave no pseudo-terminal descriptors behind', async () => {
    const ptys = () => fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`) === '/dev/ptmx';
      } catch {
        return false;
      }
    }).length;
    const before = ptys();
    const out = await b.run({ maxParallel: 5, stages: Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, command: ['sh', '-c', 'echo hi'], tty: true })) });
    const end = await b.waitEnded(out.graphId);
    expect(end.stages.every((s) => s.state === 'completed')).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(ptys()).toBeLessThanOrEqual(before);
  });

  it('transitions that happen together commit together: 64 stages start in one transaction', async () => {
    const before = (b.engine.room.db.prepare('SELECT max(id) AS m FROM events').get() as { m: number }).m;
    const out = await b.run({ maxParallel: 64, stages: Array.from({ length: 64 }, (_, i) => ({ id: `w${i}`, command: 'sleep 0.2' })) });
    expect(out.stages.every((s) => s.state === 'running')).toBe(true);
    await b.waitEnded(out.graphId, 30_000);
    const rows = b.engine.room.db.prepare("SELECT at, data FROM events WHERE id > ? AND kind = 'graph.stage'").all(before) as { at: string; data: string }[];
    const starts = rows.filter((r) => JSON.parse(r.data).state === 'running');
    const ends = rows.filter((r) => JSON.parse(r.data).state === 'completed');
    expect(starts).toHaveLength(64);
    expect(new Set(starts.map((r) => r.at)).size).toBe(1);
    expect(ends).toHaveLength(64);
    const endCommits = new Set(ends.map((r) => r.at)).size;
    expect(endCommits).toBeLessThan(64);
    console.log(`[batching] 64 stage starts in 1 transaction; 64 completions in ${endCommits} transactions`);
  });

  it('env and cwd reach the stage; the runner tag is set and the runner own variables are not inherited', async () => {
    fs.mkdirSync(path.join(b.dir, 'sub'), { recursive: true });
    const out = await b.run({ stages: [{ id: 'env', command: 'echo "$GREETING from $(basename $PWD) tag=${COMMONROOM_PROC_TAG%%:*} stage=$COMMONROOM_STAGE_ID"', cwd: 'sub', env: { GREETING: 'hello' } }] });
    await b.waitEnded(out.graphId);
    expect(await b.logText(out.graphId, 'env')).toBe(`hello from sub tag=${b.engine.room.id} stage=env\n`);
  });
});

describe('retention and closing', () => {
  /** A graph of one stage run to its end, with what spools it: the repository and the artifact folder. */
  async function endedGraph(id: string, command: string) {
    const { artifactRootOf } = await import('../../../src-main/engine/core/room-paths');
    const { GraphRepo } = await import('../../../src-main/engine/store/graphs');
    const out = await b.run({ stages: [{ id, command }] });
    await b.waitEnded(out.graphId);
    return { out, repo: new GraphRepo(b.engine.room.db), root: artifactRootOf(b.markdown) };
  }

  it('the retention pass spools graphs that ended long enough ago, and only those', async () => {
    const { spoolEnded } = await import('../../../src-main/engine/graphs/logs/artifact-store');
    const { out, repo, root } = await endedGraph('old', 'echo aged');
    expect(spoolEnded(b.engine.ctx, repo, root, { now: b.engine.ctx.now(), retentionMs: 60 * 60 * 1000 })).not.toContain(out.graphId);
    const later = new Date(Date.now() + 2 * 60 * 60 * 1000).toISOString();
    expect(spoolEnded(b.engine.ctx, repo, root, { now: later, retentionMs: 60 * 60 * 1000 })).toContain(out.graphId);
    expect((await b.status(out.graphId)).graph.logsSpooled).toBe(true);
    expect(await b.logText(out.graphId, 'old')).toBe('aged\n');
  });

  it('a spool whose commit fails (a full disk) leaves no archive and keeps the loose logs; the next pass spools it', async () => {
    const { spoolGraph, spoolEnded } = await import('../../../src-main/engine/graphs/logs/artifact-store');
    const { out, repo, root } = await endedGraph('kept', 'echo still here');
    const graph = repo.graph(out.graphId);
    if (!graph) throw new Error('no graph row');
    const full = Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    const failing = { ...b.engine.ctx, commit: () => { throw full; } } as typeof b.engine.ctx;
    expect(() => spoolGraph(failing, repo, graph, root)).toThrow(/ENOSPC/);
    expect(fs.existsSync(path.join(root, `${out.graphId}.logs.gz`))).toBe(false);
    expect(fs.readdirSync(root).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(fs.existsSync(graph.logDir)).toBe(true);
    expect(await b.logText(out.graphId, 'kept')).toBe('still here\n');
    expect(spoolEnded(b.engine.ctx, repo, root)).toContain(out.graphId);
    expect(fs.existsSync(path.join(root, `${out.graphId}.logs.gz`))).toBe(true);
    expect(await b.logText(out.graphId, 'kept')).toBe('still here\n');
  });

  it('closing the room with a graph running cancels it, ends its processes and spools its logs', async () => {
    const pidFile = path.join(b.dir, 'close.pid');
    const out = await b.run({ stages: [{ id: 'srv', command: `echo $$ > ${pidFile}; echo up; exec sleep 60` }, { id: 'next', command: 'true', dependsOn: ['srv'] }] });
    const pid = await waitForPidFile(pidFile);
    expect(isAlive(pid)).toBe(true);
    await b.reopen();
    expect(isAlive(pid)).toBe(false);
    const s = await b.status(out.graphId);
    expect(s.graph.state).toBe('cancelled');
    expect(s.stages.map((x) => [x.state, x.errorCode])).toEqual([
      ['cancelled', 'CANCELLED'],
      ['cancelled', 'CANCELLED'],
    ]);
    expect(s.graph.logsSpooled).toBe(true);
    expect(await b.logText(out.graphId, 'srv')).toBe('up\n');
  });
});
