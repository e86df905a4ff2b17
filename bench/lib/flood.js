// The flood every shell-stream measurement types (`produce(bytes)`: that many 'y', then the marker BENCHEND), the
// shell it runs in, and its baseline: raw node-pty in this process reading the same command's output.
import { performance } from 'node:perf_hooks';
import * as pty from 'node-pty';

export const SHELL_ENV = { PS1: '$ ', TERM: 'xterm-256color', PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** A command writing `bytes` × 'y', then BENCHEND (split in the command line, so its echo never matches). */
export const produce = (bytes) => `head -c ${bytes} /dev/zero | tr '\\0' y; printf 'BENCH%s\\n' END`;

/** Raw node-pty reading `produce(bytes)` until it exits: its time, the bytes seen, and this process's CPU for it. */
export async function rawFlood(bytes) {
  const own = process.cpuUsage();
  const t = performance.now();
  const term = pty.spawn('/bin/sh', ['-c', produce(bytes)], { cols: 120, rows: 32, env: SHELL_ENV, encoding: null });
  let seen = 0;
  term.onData((d) => (seen += d.length));
  await new Promise((resolve) => term.onExit(resolve));
  const mine = process.cpuUsage(own);
  return { ms: performance.now() - t, seen, cpuMs: (mine.user + mine.system) / 1000 };
}
