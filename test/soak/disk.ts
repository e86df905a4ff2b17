import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { makeHome } from '../helpers/env';
import { startServe, stopServe } from '../helpers/serve';
import { api, connectClient, ToolRefusal } from './clients';

/**
 * A full disk during a graph: the room lives on a small tmpfs (this needs root and mount; where the machine
 * does not allow it the scenario says so and is skipped). One stage fills the disk, another then writes more
 * log than fits and must fail DISK_FULL (ended by the runner, not left running unlogged). While the disk is
 * full the runner answers reads, refuses writes clearly on both doors and says it is degraded; once space is
 * back the graph ends, the runner is healthy again and the room file is consistent.
 */
export function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = fs.mkdtempSync('/tmp/commonroom-tmpfs-probe-');
  const ok = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]).status === 0;
  if (ok) spawnSync('umount', [probe]);
  fs.rmdirSync(probe);
  return ok;
}

export interface DiskTally {
  answeredWhileFull: number;
  stages: { id: string; state: string; errorCode: string | null; error: string | null }[];
  graphState: string;
  integrity: string;
  runningAfter: number;
  afterFreeing: string;
  /** What a write got while the disk was full: the REST door's status and body, an MCP client's tool error. */
  apiRefusal: string;
  mcpRefusal: string;
  /** Rows of the refused writes found in the room afterwards (must be 0). */
  refusedStored: number;
  healthWhileFull: string;
  healthAfter: string;
  log: string;
}

interface Status {
  graph: { state: string };
  stages: { id: string; state: string; errorCode?: string | null; message?: string | null }[];
}

/** What a full disk must leave: the same checks for the soak run and its fast subset. */
export function expectFullDiskHandled(t: DiskTally): void {
  expect(t.answeredWhileFull).toBeGreaterThan(0);
  expect(t.apiRefusal).toMatch(/^507 \{"error":\{"code":"DISK_FULL","message":"the disk holding the room \(.*\) is full: free space on it, then try again \(this change was not made\)"\}\}$/);
  expect(t.mcpRefusal).toMatch(/^DISK_FULL: the disk holding the room \(.*\) is full: free space on it/);
  expect(t.refusedStored).toBe(0);
  expect(JSON.parse(t.healthWhileFull)).toMatchObject({ state: 'degraded' });
  expect(t.healthAfter).toBe('{"state":"ok"}');
  // the stage that printed onto the full disk was ended by the runner and says why; its dependent never ran
  expect(t.stages).toEqual([
    expect.objectContaining({ id: 'fill', state: 'completed' }),
    expect.objectContaining({ id: 'talk', state: 'failed', errorCode: 'DISK_FULL', error: expect.stringContaining('free space there') }),
    expect.objectContaining({ id: 'after', state: 'skipped', errorCode: 'UPSTREAM_FAILED' }),
  ]);
  expect(t.graphState).toBe('failed');
  expect(t).toMatchObject({ integrity: 'ok', runningAfter: 0, afterFreeing: 'completed' });
  expect(t.log).not.toMatch(/\n\s+at /);
}

export async function runFullDisk(): Promise<DiskTally> {
  const home = makeHome();
  const mnt = path.join(home.root, 'small');
  fs.mkdirSync(mnt);
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0700', 'tmpfs', mnt]).status !== 0) throw new Error('mount -t tmpfs failed');
  const markdown = path.join(mnt, 'room.md');
  let serve = await startServe(home, ['--room', markdown]);
  try {
    const call = <T>(m: string, input: unknown) => api<T>(serve.mcpUrl, serve.token, m, input);
    // the marker lives outside the small disk: saying "it is full now" must not need space on it
    const filled = path.join(home.root, 'filled');
    const { graphId } = await call<{ graphId: string }>('tasks_run', {
      name: 'full disk',
      stages: [
        // silent: its own log needs no space, so it completes (once its end can be recorded)
        { id: 'fill', command: `dd if=/dev/zero of=${mnt}/ballast bs=64k 2>/dev/null; dd if=/dev/zero of=${mnt}/ballast2 bs=512 2>/dev/null; touch ${filled}`, timeoutMs: 30_000 },
        { id: 'talk', command: `while [ ! -e ${filled} ]; do sleep 0.05; done; for i in $(seq 1 20000); do echo "line $i of a log that no longer fits on the disk"; done; exec sleep 120`, timeoutMs: 60_000 },
        { id: 'after', command: 'echo after', dependsOn: ['talk'], timeoutMs: 30_000 },
      ],
    });
    let status: Status | null = null;
    let answeredWhileFull = 0;
    const poll = async () => {
      try {
        status = await call<Status>('tasks_status', { graphId });
      } catch (e) {
        throw new Error(`the runner stopped answering on a full disk (${(e as Error).message}); its output:\n${serve.output().slice(-3000)}`);
      }
    };
    for (let i = 0; i < 600 && !fs.existsSync(filled); i++) await new Promise((r) => setTimeout(r, 100));
    // the disk stays full for 3 s: the runner must keep answering (reads work; stage changes wait and retry)
    for (const until = Date.now() + 3000; Date.now() < until; answeredWhileFull++) {
      await poll();
      await new Promise((r) => setTimeout(r, 100));
    }
    // writes on both doors are refused with a clear reason, no stack, nothing half-written
    const res = await fetch(new URL('/api/handoff_create', serve.mcpUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${serve.token}` },
      body: JSON.stringify({ summary: 'written on a full disk' }),
    });
    const apiRefusal = `${res.status} ${JSON.stringify(await res.json())}`;
    const client = await connectClient(serve.mcpUrl, serve.token, 'legacy', 'soak-disk');
    let mcpRefusal = 'accepted';
    try {
      await client.call('handoff_create', { summary: 'written on a full disk over MCP' });
    } catch (e) {
      mcpRefusal = e instanceof ToolRefusal ? e.message : `transport: ${(e as Error).message}`;
    } finally {
      await client.close();
    }
    const health = async () => JSON.stringify((await call<{ health: unknown }>('room_info', {})).health);
    const healthWhileFull = await health();
    // the disk has room again: the graph must end, and the same runner goes on working
    fs.rmSync(path.join(mnt, 'ballast'), { force: true });
    fs.rmSync(path.join(mnt, 'ballast2'), { force: true });
    for (let i = 0; i < 600; i++) {
      await poll();
      if (!['pending', 'running'].includes((status as Status | null)?.graph.state ?? 'running')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    let healthAfter = await health();
    for (let i = 0; i < 200 && healthAfter !== '{"state":"ok"}'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      healthAfter = await health();
    }
    const db = new Database(`${markdown}.commonroom.db`, { readonly: true, fileMustExist: true });
    let integrity: string;
    let runningAfter: number;
    let refusedStored: number;
    try {
      integrity = String(db.pragma('integrity_check', { simple: true }));
      runningAfter = (db.prepare("SELECT count(*) AS n FROM graph_stages WHERE state IN ('running', 'pending')").get() as { n: number }).n;
      // a refused write left nothing behind
      refusedStored = (db.prepare("SELECT count(*) AS n FROM handoffs WHERE summary LIKE 'written on a full disk%'").get() as { n: number }).n;
    } finally {
      db.close();
    }
    const again = await call<{ graphId: string }>('tasks_run', { stages: [{ id: 'ok', command: 'echo fine' }] });
    let afterFreeing = 'pending';
    for (let i = 0; i < 200 && ['pending', 'running'].includes(afterFreeing); i++) {
      afterFreeing = (await call<Status>('tasks_status', { graphId: again.graphId })).graph.state;
      await new Promise((r) => setTimeout(r, 100));
    }
    const final = status as Status | null;
    return {
      answeredWhileFull,
      stages: (final?.stages ?? []).map((s) => ({ id: s.id, state: s.state, errorCode: s.errorCode ?? null, error: s.message ?? null })),
      graphState: final?.graph.state ?? 'unknown',
      integrity,
      runningAfter,
      afterFreeing,
      refusedStored,
      apiRefusal,
      mcpRefusal,
      healthWhileFull,
      healthAfter,
      log: serve.output().slice(-2000),
    };
  } finally {
    await stopServe(serve);
    spawnSync('umount', ['-l', mnt]);
    home.cleanup();
    serve = null as never;
  }
}
