import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HelperSpawner, inProcessSpawner, type SpawnEvents, type SpawnRequest, type StageSpawner } from '../../src-main/engine/process/stage-spawner';
import { parentPid } from '../helpers/env';

interface Seen {
  pid?: number;
  startTime?: string | null;
  failed?: string;
  lost?: string;
  out: Buffer[];
  err: Buffer[];
  order: string[];
  exit?: { code: number | null; signal: string | null };
}

/** Starts `request` and resolves with everything it reported, once it exited and its pipes closed (or it failed or was lost). */
function run(spawner: StageSpawner, request: Partial<SpawnRequest> & { file: string; args: string[] }, onStart?: (pid: number) => void): Promise<Seen> {
  const seen: Seen = { out: [], err: [], order: [] };
  return new Promise((resolve) => {
    let closed = false;
    const maybeDone = () => closed && seen.exit && resolve(seen);
    const events: SpawnEvents = {
      started(pid, startTime) {
        seen.order.push('started');
        seen.pid = pid;
        seen.startTime = startTime;
        onStart?.(pid);
      },
      failed(message) {
        seen.failed = message;
        resolve(seen);
      },
      output(stream, chunk) {
        if (seen.order.at(-1) !== stream) seen.order.push(stream);
        (stream === 'stdout' ? seen.out : seen.err).push(chunk);
      },
      closed() {
        seen.order.push('closed');
        closed = true;
        maybeDone();
      },
      exited(code, signal) {
        seen.order.push('exited');
        seen.exit = { code, signal };
        maybeDone();
      },
      lost(message) {
        seen.lost = message;
        resolve(seen);
      },
    };
    spawner.spawn({ cwd: process.cwd(), env: process.env, verbatim: false, ...request }, events);
  });
}

describe.skipIf(process.platform !== 'linux')('the stage spawner', () => {
  let spawner: HelperSpawner | undefined;
  afterEach(() => spawner?.close());

  it('starts a stage in its helper process, not in the room: pid and start time first, each stream apart, then its exit code', async () => {
    spawner = new HelperSpawner();
    let parent = 0;
    const seen = await run(spawner, { file: 'sh', args: ['-c', 'echo out; echo err >&2; sleep 0.2; exit 3'] }, (pid) => (parent = parentPid(pid)));
    expect(seen.order[0]).toBe('started');
    expect(parent).not.toBe(process.pid);
    expect(fs.readFileSync(`/proc/${parent}/cmdline`, 'utf8')).toContain('-e');
    expect(seen.startTime).toMatch(/^\d+$/);
    expect(Buffer.concat(seen.out).toString()).toBe('out\n');
    expect(Buffer.concat(seen.err).toString()).toBe('err\n');
    expect(seen.exit).toEqual({ code: 3, signal: null });
  });

  it('says why a program could not be started, as the room itself would', async () => {
    spawner = new HelperSpawner();
    const viaHelper = await run(spawner, { file: 'no-such-program-here', args: [] });
    const here = await run(inProcessSpawner, { file: 'no-such-program-here', args: [] });
    expect(viaHelper.failed).toMatch(/ENOENT/);
    expect(viaHelper.failed).toBe(here.failed);
    expect(viaHelper.pid).toBeUndefined();
  });

  it('delivers a flood of output whole and in order, read in the room from the stage\'s own pipes (not through the helper)', async () => {
    spawner = new HelperSpawner();
    const mib = 24;
    let helperPid = 0;
    const seen = await run(spawner, { file: 'sh', args: ['-c', `head -c ${mib * 1024 * 1024} /dev/zero | tr '\\0' y; echo END`] }, (pid) => (helperPid = parentPid(pid)));
    // every byte the helper's loop ever read (its pipes, its channel; the thread's own count, without its
    // children's): the output did not pass through it
    const helperRead = Number(/rchar: (\d+)/.exec(fs.readFileSync(`/proc/${helperPid}/task/${helperPid}/io`, 'utf8'))?.[1]);
    expect(helperRead).toBeLessThan(1024 * 1024);
    const out = Buffer.concat(seen.out);
    expect(out.length).toBe(mib * 1024 * 1024 + 4);
    expect(out.subarray(0, -4).every((b) => b === 0x79)).toBe(true);
    expect(out.subarray(-4).toString()).toBe('END\n');
    expect(seen.exit?.code).toBe(0);
  });

  it('when the helper dies, its running stages are reported lost and the next stage starts a new helper', async () => {
    spawner = new HelperSpawner();
    let helperPid = 0;
    const lost = run(spawner, { file: 'sleep', args: ['30'] }, (pid) => {
      helperPid = parentPid(pid);
      process.kill(helperPid, 'SIGKILL');
    });
    const seen = await lost;
    expect(seen.lost).toMatch(/stage spawner process ended \(SIGKILL\)/);
    let nextParent = 0;
    const next = await run(spawner, { file: 'sh', args: ['-c', 'echo again; sleep 0.2'] }, (pid) => (nextParent = parentPid(pid)));
    expect(Buffer.concat(next.out).toString()).toBe('again\n');
    expect(nextParent).not.toBe(helperPid);
    expect(nextParent).not.toBe(process.pid);
    // the orphaned `sleep` is the stage runner's to end (by its tag); here it is ended by its pid
    if (seen.pid !== undefined) process.kill(seen.pid, 'SIGKILL');
  });

  it('a stage whose pid had not reached the room when the helper died is reported lost, not as never started (it may run)', async () => {
    spawner = new HelperSpawner();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spawner-'));
    const marker = path.join(dir, 'ran');
    const seen = run(spawner, { file: 'sh', args: ['-c', `echo $$ > ${marker}; exec sleep 30`] });
    // in the same turn as the spawn: the room cannot have heard of its pid yet, whether or not the helper started it
    (spawner as unknown as { helper: { kill(signal: string): void } }).helper.kill('SIGKILL');
    const r = await seen;
    expect(r.failed).toBeUndefined();
    expect(r.lost).toMatch(/stage spawner process ended \(SIGKILL\)/);
    // if it did start, it is the stage runner's to end by its tag; here it is ended by its pid
    await new Promise((resolve) => setTimeout(resolve, 300));
    const pid = fs.existsSync(marker) ? Number(fs.readFileSync(marker, 'utf8')) : 0;
    if (pid > 0) process.kill(pid, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
