import fs from 'node:fs';
import path from 'node:path';
import { isAlive } from '../../src-main/engine/process/process-tree';
import { openBench } from '../engine/graphs/graph-helpers';
import { BASH, openFds, zombieChildren } from '../engine/shells/helpers';
import { percentile } from './scale';

/**
 * Shell and stage spawn/kill cycles on a real engine: every cycle starts a process tree, every fifth one a tree
 * that resists (TERM ignored, setsid, double fork, nohup), and ends it with shell_close or tasks_cancel. Measured:
 * cancel-to-last-process-dead; counted: survivors, and descriptor, PTY and zombie growth over the run.
 */
const resisting = (pidFile: string) =>
  [
    `setsid sh -c 'echo $$ >> ${pidFile}; exec sleep 300' &`,
    `sh -c 'sh -c "echo \\$\\$ >> ${pidFile}; exec sleep 300" &' &`,
    `nohup sh -c 'echo $$ >> ${pidFile}; exec sleep 300' >/dev/null 2>&1 &`,
    `sh -c 'trap "" TERM INT; echo $$ >> ${pidFile}; while true; do sleep 1; done' &`,
  ].join('\n');
const plain = (pidFile: string) => `sh -c 'echo $$ >> ${pidFile}; exec sleep 300' &`;

function ptys(): number {
  let n = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) === '/dev/ptmx') n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

async function waitPids(file: string, n: number): Promise<number[]> {
  for (let i = 0; i < 800; i++) {
    const pids = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
    if (pids.length >= n) return pids;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the tree did not start: ${file}`);
}

/** Milliseconds until every pid is gone (bounded at 15 s; a survivor after that is counted by the caller). */
async function untilDead(pids: number[], since: number): Promise<number> {
  while (pids.some((p) => isAlive(p)) && Date.now() - since < 15_000) await new Promise((r) => setTimeout(r, 2));
  return Date.now() - since;
}

export interface CycleTally {
  cycles: number;
  resisting: number;
  survivors: number;
  fdGrowth: number;
  ptyGrowth: number;
  zombies: number;
  p50: number;
  p99: number;
}

export async function runCycles(count: number): Promise<CycleTally> {
  const b = await openBench();
  const op = b.engine.operator();
  const latencies: number[] = [];
  let survivors = 0;
  let resistingCount = 0;
  const one = async (i: number) => {
    const pidFile = path.join(b.dir, `c${i}.pids`);
    const hard = i % 5 === 0;
    if (hard) resistingCount++;
    const script = hard ? resisting(pidFile) : plain(pidFile);
    let end: () => Promise<unknown>;
    if (i % 2 === 0) {
      const { shell } = await b.engine.call(op, 'shell_open', BASH);
      await b.engine.call(op, 'shell_io', { shellId: shell.id, text: `${script.replaceAll('\n', ' ')}\n` });
      end = () => b.engine.call(op, 'shell_close', { shellId: shell.id });
    } else {
      const { graphId } = await b.run({ stages: [{ id: 'tree', command: `${script}\nwait`, killGraceMs: 200 }] });
      end = () => b.engine.call(op, 'tasks_cancel', { graphId });
    }
    const pids = await waitPids(pidFile, hard ? 4 : 1);
    const since = Date.now();
    await end();
    latencies.push(await untilDead(pids, since));
    survivors += pids.filter((p) => isAlive(p)).length;
  };
  try {
    for (let i = 0; i < 4; i++) await one(-1 - i); // warm up lazily created handles
    await new Promise((r) => setTimeout(r, 300));
    const fds = openFds();
    const pty = ptys();
    latencies.length = 0;
    survivors = 0;
    resistingCount = 0;
    for (let i = 0; i < count; i++) await one(i);
    await new Promise((r) => setTimeout(r, 500));
    return {
      cycles: count,
      resisting: resistingCount,
      survivors,
      fdGrowth: openFds() - fds,
      ptyGrowth: ptys() - pty,
      zombies: zombieChildren().length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    };
  } finally {
    await b.close();
  }
}
