// The room process as an agent sees it: `commonroom serve` spawned from outside, its banner read for the
// endpoint and the operator token, participants added with `ce`. Nothing here imports the engine, so the
// benchmarks survive refactors of everything behind the doors.
import { clearTimeout, setTimeout } from 'node:timers';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const REPO = path.resolve(import.meta.dirname, '../..');
const BIN_COMMONROOM = path.join(REPO, 'bin/commonroom.js');
const BIN_CE = path.join(REPO, 'bin/ce.js');

/** A private data/config folder and room file for one benchmark, removed by cleanup(). */
export function makeHome(label = 'room') {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `commonroom-bench-${label}-`));
  const env = {
    ...process.env,
    COMMONROOM_DATA_DIR: path.join(root, 'data'),
    COMMONROOM_CONFIG_DIR: path.join(root, 'config'),
    COMMONROOM_ROOM: '',
  };
  return { root, env, roomFile: path.join(root, 'room.md'), cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** Rooms started and not yet exited: told to close when this process exits, so a benchmark that throws leaves none running. */
const running = new Set();
process.on('exit', () => {
  for (const proc of running) proc.kill('SIGTERM'); // it closes itself cleanly after this process is gone
});

/** Spawns `commonroom serve` on a free port and resolves once its banner names the endpoint and token file. */
export async function startRoom(home, extraArgs = []) {
  // home.bin: another build of the CLI (an A/B of two builds in one run, e.g. bench/investigations/ab-graph.js); BENCH_BIN: the
  // same for a whole benchmark run (the "before" figures of a change, e.g. `BENCH_BIN=.tmp/before.mjs npm run bench -- mcp-call`)
  const bin = home.bin ?? (process.env.BENCH_BIN ? path.resolve(process.env.BENCH_BIN) : BIN_COMMONROOM);
  // BENCH_ROOM_NODE_ARGS: flags for every room a run starts (e.g. --cpu-prof --cpu-prof-dir DIR, to profile any benchmark's room)
  const nodeArgs = home.nodeArgs ?? (process.env.BENCH_ROOM_NODE_ARGS ? process.env.BENCH_ROOM_NODE_ARGS.split(' ') : []);
  const proc = spawn(process.execPath, [...nodeArgs, bin, 'serve', '--room', home.roomFile, '--port', '0', ...extraArgs], {
    env: home.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(proc);
  let out = '';
  const exited = new Promise((resolve) =>
    proc.on('exit', (code, signal) => {
      running.delete(proc);
      resolve({ code, signal });
    }),
  );
  proc.stderr.on('data', (d) => (out += d.toString()));
  const ready = await Promise.race([
    new Promise((resolve) => {
      proc.stdout.on('data', (d) => {
        out += d.toString();
        if (/operator token:\s+\S+/.test(out)) resolve(true);
      });
    }),
    exited.then(() => false),
  ]);
  if (!ready) throw new Error(`commonroom serve did not start:\n${out}`);
  const url = /MCP endpoint:\s+(\S+)/.exec(out)[1];
  const tokenFile = /operator token:\s+(\S+)/.exec(out)[1];
  return {
    proc,
    pid: proc.pid,
    url: new URL(url),
    token: fs.readFileSync(tokenFile, 'utf8').trim(),
    output: () => out,
    exited,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** One call of the room's HTTP API (`POST /api/<method>`, the token as bearer): its result, or an Error naming what the room said. */
export async function callApi(room, token, method, input) {
  const response = await globalThis.fetch(new URL(`/api/${method}`, room.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`${method}: ${body.error?.message ?? JSON.stringify(body)}`);
  return body.result;
}

/** Adds a participant with `ce participant add` (through the running room process) and returns its token. */
export function addParticipant(home, name, can) {
  const r = spawnSync(process.execPath, [BIN_CE, 'participant', 'add', name, '--can', can, '--room', home.roomFile], {
    env: home.env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  const token = /(cr_[A-Za-z0-9_-]+)/.exec(r.stdout)?.[1];
  if (r.status !== 0 || !token) throw new Error(`ce participant add ${name} failed: ${r.stdout}${r.stderr}`);
  return token;
}

/**
 * CPU time a process has used so far, in ms, from /proc (NaN where there is none): the run time of each of its
 * threads from schedstat (nanoseconds; the main thread and V8's helpers), else user + system from stat (10 ms ticks).
 */
export function cpuMsOf(pid) {
  try {
    let ns = 0;
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    if (ns > 0) return ns / 1e6;
  } catch {
    // no schedstat (or the process is gone): fall back to stat's ticks
  }
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms (USER_HZ 100)
  } catch {
    return NaN;
  }
}

/** Resident memory of a process in KiB, from /proc (VmRSS now, VmHWM the peak so far). */
export function memoryOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  // anonKiB: the process's own pages (heap, stacks, buffers), without the file-backed pages of its program's code
  return { rssKiB: kib('VmRSS'), hwmKiB: kib('VmHWM'), anonKiB: kib('RssAnon') };
}
