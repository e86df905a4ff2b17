import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { makeHome } from '../helpers/env';
import { startServe, stopServe } from '../helpers/serve';
import { api } from './clients';

/**
 * A full disk during a graph: the room lives on a small tmpfs (this needs root and mount; where the machine
 * does not allow it the scenario says so and is skipped). One stage fills the disk, the next writes more log
 * than fits. The runner must stay up, the graph must end, and the room file must stay consistent.
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
  log: string;
}

interface Status {
  graph: { state: string };
  stages: { id: string; state: string; errorCode?: string | null; errorMessage?: string | null; error?: string | null }[];
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
    const { graphId } = await call<{ graphId: string }>('tasks_run', {
      name: 'full disk',
      stages: [
        { id: 'fill', command: `dd if=/dev/zero of=${mnt}/ballast bs=64k 2>/dev/null; echo filled`, timeoutMs: 30_000 },
        { id: 'talk', command: 'for i in $(seq 1 20000); do echo "line $i of a log that no longer fits on the disk"; done', dependsOn: ['fill'], timeoutMs: 30_000 },
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
    // the disk stays full for 3 s: the runner must keep answering (reads work; writes wait and retry)
    for (const until = Date.now() + 3000; Date.now() < until; answeredWhileFull++) {
      await poll();
      await new Promise((r) => setTimeout(r, 100));
    }
    // the disk has room again: the graph must end, and the same runner goes on working
    fs.rmSync(path.join(mnt, 'ballast'), { force: true });
    for (let i = 0; i < 600; i++) {
      await poll();
      if (!['pending', 'running'].includes((status as Status | null)?.graph.state ?? 'running')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const db = new Database(`${markdown}.commonroom.db`, { readonly: true, fileMustExist: true });
    let integrity: string;
    let runningAfter: number;
    try {
      integrity = String(db.pragma('integrity_check', { simple: true }));
      runningAfter = (db.prepare("SELECT count(*) AS n FROM graph_stages WHERE state IN ('running', 'pending')").get() as { n: number }).n;
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
      stages: (final?.stages ?? []).map((s) => ({ id: s.id, state: s.state, errorCode: s.errorCode ?? null, error: s.errorMessage ?? s.error ?? null })),
      graphState: final?.graph.state ?? 'unknown',
      integrity,
      runningAfter,
      afterFreeing,
      log: serve.output().slice(-2000),
    };
  } finally {
    await stopServe(serve);
    spawnSync('umount', ['-l', mnt]);
    home.cleanup();
    serve = null as never;
  }
}
