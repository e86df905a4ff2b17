import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expectBefore, maxOverlap, openBench, orderLines, traced, type GraphBench } from './graph-helpers';

let b: GraphBench;
beforeAll(async () => {
  b = await openBench();
});
afterAll(async () => {
  await b.close();
});

const orderFile = (name: string) => path.join(b.dir, `${name}.order`);

describe('graphs run in dependency order', () => {
  it('a diamond: a, then b and c, then d', async () => {
    const f = orderFile('diamond');
    const out = await b.run({
      name: 'diamond',
      stages: [
        { id: 'd', command: traced(f, 'd'), dependsOn: ['b', 'c'] },
        { id: 'b', command: traced(f, 'b'), dependsOn: ['a'] },
        { id: 'c', command: traced(f, 'c'), dependsOn: ['a'] },
        { id: 'a', command: traced(f, 'a') },
      ],
    });
    // the answer comes at once: a is running, the rest waits
    expect(out.stages.find((s) => s.id === 'a')?.state).toBe('running');
    expect(out.stages.find((s) => s.id === 'd')?.state).toBe('pending');
    const end = await b.waitEnded(out.graphId);
    expect(end.graph.state).toBe('completed');
    expect(end.graph.progress).toMatchObject({ done: 4, total: 4 });
    const lines = orderLines(f);
    expectBefore(lines, 'end a', 'start b');
    expectBefore(lines, 'end a', 'start c');
    expectBefore(lines, 'end b', 'start d');
    expectBefore(lines, 'end c', 'start d');
    expect(await b.logText(out.graphId, 'd')).toContain('d says hi');
    const task = b.engine.room.tasks.get(out.graphId);
    expect(task).toMatchObject({ operation: 'graph.run', status: 'completed', owner: 'operator', ttlMs: null });
  });

  it('a chain runs strictly one after another', async () => {
    const f = orderFile('chain');
    const ids = ['s1', 's2', 's3', 's4', 's5'];
    const out = await b.run({ maxParallel: 4, stages: ids.map((id, i) => ({ id, command: traced(f, id, 0.05), dependsOn: i === 0 ? [] : [ids[i - 1] as string] })) });
    expect((await b.waitEnded(out.graphId)).graph.state).toBe('completed');
    expect(orderLines(f)).toEqual(ids.flatMap((id) => [`start ${id}`, `end ${id}`]));
  });

  it('a wide graph never runs more than maxParallel at once', async () => {
    const f = orderFile('wide');
    const out = await b.run({ maxParallel: 3, stages: Array.from({ length: 9 }, (_, i) => ({ id: `w${i}`, command: traced(f, `w${i}`, 0.3) })) });
    expect(out.stages.filter((s) => s.state === 'running')).toHaveLength(3);
    expect((await b.waitEnded(out.graphId)).graph.state).toBe('completed');
    const lines = orderLines(f);
    expect(lines).toHaveLength(18);
    expect(maxOverlap(lines)).toBeLessThanOrEqual(3);
    expect(maxOverlap(lines)).toBeGreaterThanOrEqual(2);
  });
});

describe('failures', () => {
  it('a failing stage skips its dependents, the rest goes on, and the graph reads failed', async () => {
    const f = orderFile('fail');
    const out = await b.run({
      stages: [
        { id: 'build', command: traced(f, 'build', 0.05, 3) },
        { id: 'test', command: traced(f, 'test'), dependsOn: ['build'] },
        { id: 'deploy', command: traced(f, 'deploy'), dependsOn: ['test'] },
        { id: 'lint', command: traced(f, 'lint') },
      ],
    });
    const end = await b.waitEnded(out.graphId);
    expect(end.graph.state).toBe('failed');
    const by = Object.fromEntries(end.stages.map((s) => [s.id, s]));
    expect(by.build).toMatchObject({ state: 'failed', errorCode: 'EXIT_NONZERO', exitCode: 3, attempt: 1 });
    expect(by.test).toMatchObject({ state: 'skipped', errorCode: 'UPSTREAM_FAILED' });
    expect(by.deploy).toMatchObject({ state: 'skipped', errorCode: 'UPSTREAM_FAILED' });
    expect(by.lint).toMatchObject({ state: 'completed' });
    expect(orderLines(f).some((l) => l.includes('test') || l.includes('deploy'))).toBe(false);
    expect(b.engine.room.tasks.get(out.graphId)?.status).toBe('failed');
  });

  it('cancel-all cancels the rest after a failure', async () => {
    const out = await b.run({
      onFailure: 'cancel-all',
      stages: [
        { id: 'boom', command: 'sleep 0.1; exit 1' },
        { id: 'slow', command: 'sleep 30', killGraceMs: 200 },
        { id: 'later', command: 'true', dependsOn: ['slow'] },
      ],
    });
    const end = await b.waitEnded(out.graphId);
    expect(end.graph.state).toBe('failed');
    expect(end.stages.map((s) => [s.id, s.state, s.errorCode])).toEqual([
      ['boom', 'failed', 'EXIT_NONZERO'],
      ['slow', 'cancelled', 'CANCELLED'],
      ['later', 'cancelled', 'CANCELLED'],
    ]);
  });

  it('retries with backoff until an attempt succeeds', async () => {
    const counter = path.join(b.dir, 'flaky.count');
    const flaky = `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; echo "attempt $n"; [ $n -ge 3 ]`;
    const out = await b.run({ stages: [{ id: 'flaky', command: flaky, retries: 2, retryBackoffMs: 10 }] });
    const end = await b.waitEnded(out.graphId);
    expect(end.stages[0]).toMatchObject({ state: 'completed', attempt: 3, maxAttempts: 3 });
    const log = await b.logText(out.graphId, 'flaky');
    expect(log).toMatch(/attempt 1[\s\S]*attempt 2[\s\S]*attempt 3/);
  });

  it('gives up when the retries are spent', async () => {
    const out = await b.run({ stages: [{ id: 'never', command: ['sh', '-c', 'exit 7'], retries: 1, retryBackoffMs: 0 }] });
    const end = await b.waitEnded(out.graphId);
    expect(end.stages[0]).toMatchObject({ state: 'failed', errorCode: 'EXIT_NONZERO', exitCode: 7, attempt: 2 });
  });

  it('a timeout ends the attempt (SIGINT first) and fails the stage with TIMEOUT', async () => {
    const out = await b.run({ stages: [{ id: 'hang', command: 'sleep 30', timeoutMs: 200, killGraceMs: 300 }, { id: 'after', command: 'true', dependsOn: ['hang'] }] });
    const end = await b.waitEnded(out.graphId);
    expect(end.stages[0]).toMatchObject({ state: 'failed', errorCode: 'TIMEOUT' });
    expect(end.stages[1]).toMatchObject({ state: 'skipped', errorCode: 'UPSTREAM_FAILED' });
  });

  it('a program that does not exist fails as SPAWN_FAILED', async () => {
    const out = await b.run({ stages: [{ id: 'ghost', command: ['/no/such/program-xyz'] }] });
    const end = await b.waitEnded(out.graphId);
    expect(end.stages[0]).toMatchObject({ state: 'failed', errorCode: 'SPAWN_FAILED' });
    expect(end.stages[0]?.message).toMatch(/could not start/);
  });
  it('a killed stage fails as SIGNAL', async () => {
    const out = await b.run({ stages: [{ id: 'segv', command: 'kill -SEGV $$' }] });
    const end = await b.waitEnded(out.graphId);
    expect(end.stages[0]).toMatchObject({ state: 'failed', errorCode: 'SIGNAL', signal: 'SIGSEGV' });
  });
});

describe('readiness of long-running stages', () => {
  it('by log regex: the dependent starts while the service keeps running; the service is stopped after', async () => {
    const pidFile = path.join(b.dir, 'svc-log.pid');
    const out = await b.run({
      maxParallel: 1,
      stages: [
        { id: 'svc', command: `echo $$ > ${pidFile}; echo booting; sleep 0.2; echo "server listening on 4000"; exec sleep 60`, readiness: { log: 'listening on \\d+' }, killGraceMs: 300 },
        { id: 'e2e', command: `kill -0 $(cat ${pidFile}) && echo "service alive while e2e ran"`, dependsOn: ['svc'] },
      ],
    });
    const end = await b.waitEnded(out.graphId);
    expect(end.graph.state).toBe('completed');
    expect(await b.logText(out.graphId, 'e2e')).toContain('service alive while e2e ran');
    expect(end.stages[0]).toMatchObject({ state: 'completed', ready: true });
    expect(end.stages[0]?.message).toMatch(/stopped after/);
  });

  it('by TCP port', async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const pidFile = path.join(b.dir, 'svc-port.pid');
    const server = `echo $$ > ${pidFile}; sleep 0.3; exec node -e "require('net').createServer(s=>s.end()).listen(${port}, '127.0.0.1')"`;
    const out = await b.run({
      stages: [
        { id: 'api', command: server, readiness: { port, timeoutMs: 10_000 }, killGraceMs: 300 },
        { id: 'probe', command: `kill -0 $(cat ${pidFile}) && node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('connected'); process.exit(0) })"`, dependsOn: ['api'] },
      ],
    });
    const end = await b.waitEnded(out.graphId);
    expect(end.stages.map((s) => s.state)).toEqual(['completed', 'completed']);
    expect(await b.logText(out.graphId, 'probe')).toContain('connected');
  });

  it('by URL', async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const server = `sleep 0.2; exec node -e "require('http').createServer((q, s) => s.end(q.url)).listen(${port}, '127.0.0.1')"`;
    const out = await b.run({
      stages: [
        { id: 'web', command: server, readiness: { url: `http://127.0.0.1:${port}/health`, timeoutMs: 10_000 }, killGraceMs: 300 },
        { id: 'fetch', command: `node -e "fetch('http://127.0.0.1:${port}/hello').then(r => r.text()).then(t => console.log('got ' + t))"`, dependsOn: ['web'] },
      ],
    });
    const end = await b.waitEnded(out.graphId);
    expect(end.stages.map((s) => s.state)).toEqual(['completed', 'completed']);
    expect(await b.logText(out.graphId, 'fetch')).toBe('got /hello\n');
  });

  it('a service that never becomes ready fails with TIMEOUT and its dependents are skipped', async () => {
    const out = await b.run({ stages: [{ id: 'mute', command: 'sleep 30', readiness: { log: 'never' , timeoutMs: 200 }, killGraceMs: 200 }, { id: 'dep', command: 'true', dependsOn: ['mute'] }] });
    const end = await b.waitEnded(out.graphId);
    expect(end.stages.map((s) => [s.state, s.errorCode])).toEqual([
      ['failed', 'TIMEOUT'],
      ['skipped', 'UPSTREAM_FAILED'],
    ]);
  });
});

describe('logs', () => {
  it('stdout and stderr are tagged, in order, in a 0600 file; the cursor reads on without gaps', async () => {
    const out = await b.run({ stages: [{ id: 'talk', command: 'for i in 1 2 3 4 5 6 7 8 9 10; do echo "out $i"; echo "err $i" >&2; sleep 0.01; done' }] });
    await b.waitEnded(out.graphId);
    const logPath = path.join(`${b.markdown}.commonroom.d`, 'logs', out.graphId, 'talk.log');
    expect(fs.statSync(logPath).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(logPath)).mode & 0o777).toBe(0o700);
    const records: { stream: string; text: string; seq: number }[] = [];
    let cursor = 'start';
    for (let i = 0; i < 100; i++) {
      const r = (await b.engine.call(b.engine.operator(), 'tasks_status', { graphId: out.graphId, stageId: 'talk', cursor, maxBytes: 200 })) as {
        log: { records: typeof records; nextCursor: string; more: boolean };
      };
      records.push(...r.log.records);
      cursor = r.log.nextCursor;
      if (!r.log.more) break;
    }
    const seqs = records.map((r) => r.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    expect(new Set(seqs).size).toBe(seqs.length);
    const text = (s: string) => records.filter((r) => r.stream === s).map((r) => r.text).join('');
    expect(text('stdout')).toBe(Array.from({ length: 10 }, (_, i) => `out ${i + 1}\n`).join(''));
    expect(text('stderr')).toBe(Array.from({ length: 10 }, (_, i) => `err ${i + 1}\n`).join(''));
    // the tail (no cursor) ends with the last record
    const tail = (await b.engine.call(b.engine.operator(), 'tasks_status', { graphId: out.graphId, stageId: 'talk', maxBytes: 300 })) as { log: { records: { text: string }[]; more: boolean } };
    expect(tail.log.records.at(-1)?.text).toMatch(/exited with code 0/);
    expect(tail.log.more).toBe(false);
  });

  it('waitMs long-polls: the call answers when new output arrives or the state changes, not at the deadline', async () => {
    const out = await b.run({ stages: [{ id: 'slow', command: 'echo early; sleep 0.4; echo late; sleep 0.4' }] });
    const call = (input: Record<string, unknown>) =>
      b.engine.call(b.engine.operator(), 'tasks_status', { graphId: out.graphId, ...input }) as Promise<{
        graph: { state: string };
        log?: { records: { stream: string; text: string }[]; nextCursor: string };
        waitedMs?: number;
      }>;
    let cursor = 'start';
    let seen = '';
    for (let i = 0; i < 20 && !seen.includes('late'); i++) {
      const r = await call({ stageId: 'slow', cursor, waitMs: 20_000 });
      seen += r.log?.records.filter((x) => x.stream === 'stdout').map((x) => x.text).join('') ?? '';
      cursor = r.log?.nextCursor ?? cursor;
      expect(r.waitedMs).toBeLessThan(20_000);
    }
    expect(seen).toBe('early\nlate\n');
    const ended = await call({ waitMs: 20_000 });
    expect(ended.waitedMs).toBeLessThan(20_000);
    expect((await b.waitEnded(out.graphId)).graph.state).toBe('completed');
    const after = await call({ waitMs: 20_000 });
    expect(after.waitedMs).toBe(0); // an ended graph never waits
  });

  it('a wait the caller gives up (its request aborted) ends then, not at its deadline; a whole-graph wait ends with the graph when it is cancelled', async () => {
    const out = await b.run({ stages: [{ id: 'long', command: ['sleep', '30'] }] });
    const gaveUp = new AbortController();
    const started = Date.now();
    const waiting = b.engine.call(b.engine.operator(), 'tasks_status', { graphId: out.graphId, stages: false, waitMs: 20_000, until: 'ended' }, { signal: gaveUp.signal }) as Promise<{ graph: { state: string }; waitedMs: number }>;
    setTimeout(() => gaveUp.abort(), 200);
    const r = await waiting;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.graph.state).toBe('running');
    const untilEnded = b.engine.call(b.engine.operator(), 'tasks_status', { graphId: out.graphId, stages: false, waitMs: 20_000, until: 'ended' }) as Promise<{ graph: { state: string }; waitedMs: number }>;
    await b.engine.call(b.engine.operator(), 'tasks_cancel', { graphId: out.graphId });
    const ended = await untilEnded;
    expect(ended.graph.state).toBe('cancelled');
    expect(ended.waitedMs).toBeLessThan(10_000);
  });

  it('when the room closes, ended graphs are spooled into one archive (a gzip member per stage, indexed) and stay readable', async () => {
    const out = await b.run({
      stages: [
        { id: 'say', command: 'echo "kept after spooling"' },
        { id: 'quiet', command: 'true', dependsOn: ['say'] },
        { id: 'more', command: 'seq 1 2000', dependsOn: ['say'] },
      ],
    });
    await b.waitEnded(out.graphId);
    const logDir = path.join(`${b.markdown}.commonroom.d`, 'logs', out.graphId);
    expect(fs.existsSync(logDir)).toBe(true);
    await b.reopen();
    expect(fs.existsSync(logDir)).toBe(false);
    const rows = b.engine.room.db.prepare('SELECT * FROM graph_artifacts WHERE graph_id = ? ORDER BY byte_offset').all(out.graphId) as { stage_id: string; path: string; raw_bytes: number; stored_bytes: number; byte_offset: number }[];
    expect(rows.map((r) => r.stage_id)).toEqual(['say', 'quiet', 'more']);
    const archive = rows[0]?.path as string;
    expect(archive.endsWith(`${out.graphId}.logs.gz`)).toBe(true);
    expect(rows.every((r) => r.path === archive)).toBe(true);
    expect(fs.statSync(archive).mode & 0o777).toBe(0o600);
    // the members lie end to end, in submission order, and fill the archive
    rows.forEach((r, i) => expect(r.byte_offset).toBe(i === 0 ? 0 : (rows[i - 1] as (typeof rows)[0]).byte_offset + (rows[i - 1] as (typeof rows)[0]).stored_bytes));
    expect(fs.statSync(archive).size).toBe(rows.reduce((n, r) => n + r.stored_bytes, 0));
    expect(zlib.gunzipSync(fs.readFileSync(archive)).length).toBe(rows.reduce((n, r) => n + r.raw_bytes, 0));
    expect(await b.logText(out.graphId, 'say')).toBe('kept after spooling\n');
    expect(await b.logText(out.graphId, 'quiet')).toBe('');
    expect(await b.logText(out.graphId, 'more')).toBe(`${Array.from({ length: 2000 }, (_, i) => i + 1).join('\n')}\n`);
    expect((await b.status(out.graphId)).graph.logsSpooled).toBe(true);
  });

  it("a stage's log is made while the stage before it runs; one made for a stage that never ran is not archived", async () => {
    const out = await b.run({
      maxParallel: 2,
      stages: [
        { id: 'first', command: 'echo "first ran"; sleep 0.5; exit 1' },
        { id: 'next', command: 'echo never', dependsOn: ['first'] },
        { id: 'other', command: 'sleep 1.5' },
      ],
    });
    const logDir = path.join(`${b.markdown}.commonroom.d`, 'logs', out.graphId);
    // made ahead, empty, while `first` runs
    const nextLog = path.join(logDir, 'next.log');
    for (let i = 0; i < 40 && !fs.existsSync(nextLog); i++) await new Promise((r) => setTimeout(r, 10));
    expect(fs.statSync(nextLog).size).toBe(0);
    expect(fs.statSync(nextLog).mode & 0o777).toBe(0o600);
    // skipped while `other` still runs: the file made for it is closed then, not when the graph ends
    const holdsNextLog = () => fs.readdirSync('/proc/self/fd').some((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`) === nextLog;
      } catch {
        return false;
      }
    });
    if (process.platform === 'linux') expect(holdsNextLog()).toBe(true);
    await vi.waitFor(async () => expect((await b.stage(out.graphId, 'next')).state).toBe('skipped'), { timeout: 5_000, interval: 20 });
    expect((await b.status(out.graphId)).graph.state).toBe('running');
    if (process.platform === 'linux') expect(holdsNextLog()).toBe(false);
    const end = await b.waitEnded(out.graphId);
    expect(end.stages.map((s) => [s.id, s.state])).toEqual([
      ['first', 'failed'],
      ['next', 'skipped'],
      ['other', 'completed'],
    ]);
    expect(await b.logText(out.graphId, 'next')).toBe('');
    await b.reopen();
    expect(fs.existsSync(logDir)).toBe(false);
    const rows = b.engine.room.db.prepare('SELECT stage_id FROM graph_artifacts WHERE graph_id = ?').all(out.graphId) as { stage_id: string }[];
    expect(rows.map((r) => r.stage_id)).toEqual(['first', 'other']);
    expect(await b.logText(out.graphId, 'first')).toBe('first ran\n');
    expect(await b.logText(out.graphId, 'next')).toBe('');
  });

  it("a log folder removed by hand while a stage runs is made again for the next stage, whose log was made ahead in it", async () => {
    const logs = path.join(`${b.markdown}.commonroom.d`, 'logs');
    const out = await b.run({
      stages: [
        { id: 'remover', command: `sleep 0.2; rm -rf "${logs}/$COMMONROOM_GRAPH_ID"` },
        { id: 'after', command: 'echo "after still logged"', dependsOn: ['remover'] },
      ],
    });
    const end = await b.waitEnded(out.graphId);
    expect(end.stages.map((s) => s.state)).toEqual(['completed', 'completed']);
    expect(await b.logText(out.graphId, 'after')).toBe('after still logged\n');
  });

  it('a stage log spooled to a file of its own (by schema 6, before archives) stays readable', async () => {
    const out = await b.run({ stages: [{ id: 'old', command: 'echo "from an older room"' }] });
    await b.waitEnded(out.graphId);
    await b.reopen();
    const db = b.engine.room.db;
    const row = db.prepare('SELECT * FROM graph_artifacts WHERE graph_id = ?').get(out.graphId) as { path: string; byte_offset: number; stored_bytes: number };
    // rewrite it as schema 6 left it: its member alone in a file, no offset
    const own = path.join(path.dirname(row.path), out.graphId, 'old.log.gz');
    fs.mkdirSync(path.dirname(own), { mode: 0o700 });
    fs.writeFileSync(own, fs.readFileSync(row.path).subarray(row.byte_offset, row.byte_offset + row.stored_bytes), { mode: 0o600 });
    fs.rmSync(row.path);
    db.prepare('UPDATE graph_artifacts SET path = ?, byte_offset = NULL WHERE graph_id = ?').run(own, out.graphId);
    expect(await b.logText(out.graphId, 'old')).toBe('from an older room\n');
  });
});
