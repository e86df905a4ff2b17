// The stage spawner's helper process: its program (run by `node -e`) and the messages it and the room exchange.

/**
 * Where the output passes through the helper (Windows: elsewhere the room reads the stages' pipes itself), it
 * pauses its stages' pipes while more than this many bytes of their output wait to reach the room.
 */
export const HELPER_HIGH_WATER = 4 * 1024 * 1024;
/** …and lets them flow again once fewer than this wait. */
export const HELPER_LOW_WATER = 1024 * 1024;
export type ToHelper = ['spawn', number, string, string[], string, NodeJS.ProcessEnv, boolean];
export type FromHelper =
  | { t: 'pid'; id: number; pid: number; start: string | null }
  | { t: 'pipe'; id: number; s: 'o' | 'e' }
  | { t: 'fail'; id: number; message: string }
  | { t: 'out'; id: number; s: 'o' | 'e'; d: Uint8Array }
  | { t: 'closed'; id: number }
  | { t: 'exit'; id: number; code: number | null; signal: string | null };

/**
 * The helper's whole program (run by `node -e` in its own process; it imports nothing of the room). A fork
 * copies the forking process's page tables and write-protects every page it had written, so each page the
 * room touches after a spawn costs a fault: on a virtual machine that made the room spend ~20 ms of CPU per
 * stage, two thirds of it around the fork. The helper is small and does nothing else, so a fork costs it
 * little and the room none; stage processes are the helper's children, in their own sessions as before. Their
 * output does not pass through it: each stage's two pipes are handed to the room (sent over the channel, as a
 * socket is), which reads them itself. Through the helper, 64 MiB of output cost it ~120 ms of CPU and the
 * room's channel as much again.
 */
export function helperProgram(high: number, low: number): void {
  const cp = process.getBuiltinModule('node:child_process');
  const fs = process.getBuiltinModule('node:fs');
  const send = (m: unknown, bytes = 0) => process.send?.(m, undefined, {}, () => settle(-bytes));
  const children = new Set<import('node:child_process').ChildProcess>();
  let waiting = 0;
  let paused = false;
  const settle = (delta: number) => {
    waiting += delta;
    const pause = waiting > high || (paused && waiting > low);
    if (pause === paused) return;
    paused = pause;
    for (const c of children) {
      for (const pipe of [c.stdout, c.stderr]) {
        if (pause) pipe?.pause();
        else pipe?.resume();
      }
    }
  };
  const startTime = (pid: number): string | null => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
    } catch {
      return null;
    }
  };
  // where a pipe can be passed to another process (not Windows), the room is given the stage's pipes
  const handOver = process.platform !== 'win32';
  process.on('disconnect', () => process.exit(0));
  process.on('message', (m: ToHelper) => {
    const [, id, file, args, cwd, env, verbatim] = m;
    let child: import('node:child_process').ChildProcess;
    try {
      child = cp.spawn(file, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], windowsVerbatimArguments: verbatim });
    } catch (error) {
      send({ t: 'fail', id, message: (error as Error).message });
      return;
    }
    child.once('error', (error) => {
      // emitted when the program cannot be started; after a start it is no exit
      if (child.pid === undefined) send({ t: 'fail', id, message: error.message });
    });
    if (child.pid === undefined) return;
    send({ t: 'pid', id, pid: child.pid, start: process.platform === 'linux' ? startTime(child.pid) : null });
    child.once('exit', (code, signal) => send({ t: 'exit', id, code, signal }));
    if (handOver) {
      // not one byte is read here (reading the pipes started in spawn() and is stopped before the loop runs
      // again): the pipes themselves go to the room (the helper's own copies are closed once sent), which reads
      // them as it reads a child's own; no byte of output passes through the helper or the channel
      for (const pipe of [child.stdout, child.stderr]) (pipe as unknown as { _handle: { readStop(): number } } | null)?._handle.readStop();
      process.send?.({ t: 'pipe', id, s: 'o' }, child.stdout as never);
      process.send?.({ t: 'pipe', id, s: 'e' }, child.stderr as never);
      return;
    }
    // the child is forgotten once its pipes closed (until then a paused pipe is resumed with the others)
    children.add(child);
    let pipes = 2;
    for (const [s, pipe] of [['o', child.stdout], ['e', child.stderr]] as const) {
      if (paused) pipe?.pause();
      pipe?.on('data', (d: Buffer) => {
        settle(d.length);
        send({ t: 'out', id, s, d }, d.length);
      });
      pipe?.on('close', () => {
        if (--pipes > 0) return;
        children.delete(child);
        send({ t: 'closed', id });
      });
    }
  });
}
