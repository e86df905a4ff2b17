import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findLeftovers, findTagged, isAlive, killTree, processBackend, processStartTime, tagEnv } from '../../src-main/engine/process/process-tree';

const spawned: number[] = [];
afterEach(() => {
  for (const pid of spawned.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

/**
 * A tree that tries hard to survive: setsid and nohup grandchildren, a double-forked one (its parent exits at
 * once, so it is re-parented away from the tree), and a child that ignores SIGTERM and SIGINT.
 */
function stubbornTree(tag: string, pidFile: string) {
  const script = [
    `setsid sh -c 'echo $$ >> ${pidFile}; exec sleep 300' &`,
    `nohup sh -c 'echo $$ >> ${pidFile}; exec sleep 300' >/dev/null 2>&1 &`,
    `(sh -c 'echo $$ >> ${pidFile}; exec sleep 300' &)`,
    `sh -c 'trap "" TERM INT HUP; echo $$ >> ${pidFile}; while true; do sleep 1; done' &`,
    `echo $$ >> ${pidFile}`,
    'wait',
  ].join('\n');
  const child = spawn('bash', ['-c', script], { env: tagEnv(process.env, tag), detached: true, stdio: 'ignore' });
  if (child.pid === undefined) throw new Error('spawn failed');
  spawned.push(child.pid);
  return child.pid;
}

async function waitForLines(file: string, n: number): Promise<number[]> {
  for (let i = 0; i < 200; i++) {
    const pids = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
    if (pids.length >= n) return pids;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`only got ${fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : 'nothing'}`);
}

describe('process trees', () => {
  it('runs on the backend this run asked for (vitest runs this file once per backend)', () => {
    expect(processBackend().name).toBe(process.env.COMMONROOM_PROCESS_BACKEND ?? (process.platform === 'linux' ? 'proc' : 'ps'));
  });

  it('finds every tagged descendant, also those that left the group, and ends them all; an untagged bystander survives', async () => {
    const tag = `test:${randomUUID()}`;
    const pidFile = path.join(os.tmpdir(), `tree-${randomUUID()}.pids`);
    const bystander = spawn('sleep', ['300'], { stdio: 'ignore' });
    spawned.push(bystander.pid as number);
    const root = stubbornTree(tag, pidFile);
    const pids = await waitForLines(pidFile, 5);
    // sleep execs replace the sh of the setsid/nohup children, so their pids stay in the file
    const tagged = findTagged(tag).map((p) => p.pid);
    for (const pid of pids) expect(tagged, `pid ${pid} should be found by its tag`).toContain(pid);

    const report = await killTree({ tag, pgid: root }, { signals: ['SIGINT', 'SIGTERM', 'SIGKILL'], graceMs: 300 });
    expect(report.survivors).toBe(0);
    expect(report.sent).toContain('SIGKILL'); // the TERM-ignoring child forced the last step
    for (const pid of pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(findTagged(tag)).toEqual([]);
    expect(isAlive(bystander.pid as number)).toBe(true);
    expect(isAlive({ pid: bystander.pid as number, startTime: processStartTime(bystander.pid as number) as string })).toBe(true);
    fs.rmSync(pidFile, { force: true });
  });

  it('stops at the first signal that is enough', async () => {
    const tag = `test:${randomUUID()}`;
    const child = spawn('sleep', ['300'], { env: tagEnv(process.env, tag), detached: true, stdio: 'ignore' });
    spawned.push(child.pid as number);
    await new Promise((r) => setTimeout(r, 50));
    const report = await killTree({ tag, pgid: child.pid }, { signals: ['SIGTERM', 'SIGKILL'], graceMs: 2_000 });
    expect(report).toEqual({ sent: ['SIGTERM'], survivors: 0 });
  });

  it('never signals a pid whose start time changed (a recycled pid)', async () => {
    const bystander = spawn('sleep', ['300'], { stdio: 'ignore' });
    spawned.push(bystander.pid as number);
    const pid = bystander.pid as number;
    const real = processStartTime(pid);
    expect(real).not.toBeNull();
    const report = await killTree(
      { tag: `nobody:${randomUUID()}`, root: { pid, startTime: `${real}0` } },
      { signals: ['SIGKILL'], graceMs: 100 },
    );
    expect(report.sent).toEqual([]);
    expect(isAlive(pid)).toBe(true);
  });

  it.skipIf(process.platform !== 'linux' || processBackend().name !== 'proc')('the leftovers of an exited stage name each process once, never one of its threads', async () => {
    const tag = `t-${randomUUID()}`;
    const spawnedAt = Date.now();
    const root = spawn('sleep', ['0.3'], { env: tagEnv(process.env, tag), detached: true, stdio: 'ignore' });
    if (root.pid === undefined) throw new Error('spawn failed');
    const rootStart = processStartTime(root.pid);
    // a leftover with threads (Node's own): their ids follow its pid, and /proc answers each of them by name too
    const left = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { env: tagEnv(process.env, tag), detached: true, stdio: 'ignore' });
    if (left.pid === undefined || rootStart === null) throw new Error('spawn failed');
    spawned.push(left.pid);
    await new Promise((r) => root.once('exit', r));
    await new Promise((r) => setTimeout(r, 300));
    expect(fs.readdirSync(`/proc/${left.pid}/task`).length).toBeGreaterThan(1);
    expect(findLeftovers(tag, { pid: root.pid, startTime: rootStart }, spawnedAt).map((p) => p.pid)).toEqual([left.pid]);
  });
});
