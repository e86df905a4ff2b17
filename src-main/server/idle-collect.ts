import v8 from 'node:v8';

/**
 * The room process hands back the memory a burst of work left behind once it has gone quiet. V8 keeps what a
 * burst grew (its young generation grows from 1 to 16 MiB a semi-space as the room allocates, and garbage waits in
 * the old generation for the next full collection) until it collects again, and a quiet process rarely does: a
 * room of 100 idle shells held 72 KiB a shell a minute after opening them, 28 KiB after one collection (its shells'
 * own cost, node-pty's floor). So, checked every few seconds: when the process has used almost no CPU for a while
 * and V8's heap has grown by a few MiB since the last time, one memory-reducing collection (what V8 does on a
 * low-memory signal: it also shrinks the young generation). It costs one full collection (tens of ms) per quiet
 * spell; a busy room is never interrupted by it (V8 collects a busy room by itself).
 */

/** What a check reads: CPU time the process used so far and V8's heap resident now. */
export interface ProcessSample {
  cpuUs: number;
  atMs: number;
  heapBytes: number;
}

export interface IdleCollectOptions {
  /** At most this share of one core used over the quiet spell (default 2 %). */
  quietCpu?: number;
  /** Checks in a row that must be quiet (default 2: 10 s at the default pace). */
  quietChecks?: number;
  /** The heap must have grown this much since the last collection (default 2 MiB). */
  growthBytes?: number;
}

/** The decision, fed one sample per check (no timers: `startIdleCollect` drives it). */
export class IdleCollect {
  private last: ProcessSample | undefined;
  private quietRun = 0;
  /** V8's heap just after the last collection (or at the first sample). */
  private baseline: number | undefined;
  private readonly quietCpu: number;
  private readonly quietChecks: number;
  private readonly growthBytes: number;

  constructor(options: IdleCollectOptions = {}) {
    this.quietCpu = options.quietCpu ?? 0.02;
    this.quietChecks = options.quietChecks ?? 2;
    this.growthBytes = options.growthBytes ?? 2 * 1024 * 1024;
  }

  /** One check: true when a collection is due now (then call `collected` with the heap after it). */
  check(sample: ProcessSample): boolean {
    const last = this.last;
    this.last = sample;
    this.baseline ??= sample.heapBytes;
    if (!last || sample.atMs <= last.atMs) return false;
    const share = (sample.cpuUs - last.cpuUs) / 1000 / (sample.atMs - last.atMs);
    this.quietRun = share <= this.quietCpu ? this.quietRun + 1 : 0;
    // grown less than it may (or shrunk): the figure to grow from follows it down
    if (sample.heapBytes < this.baseline) this.baseline = sample.heapBytes;
    return this.quietRun >= this.quietChecks && sample.heapBytes - this.baseline >= this.growthBytes;
  }

  /** A collection ran: the heap after it is what later growth is measured from; the quiet spell starts over. */
  collected(heapBytes: number, cpuUs: number, atMs: number): void {
    this.baseline = heapBytes;
    this.quietRun = 0;
    // the collection's own CPU does not count against the next spell
    this.last = { cpuUs, atMs, heapBytes };
  }
}

const CHECK_MS = 5_000;

/**
 * V8's memory-reducing collection (as on a low-memory signal), through an in-process inspector session (no port).
 * V8 runs it as a task of its own (with no stack to scan), so it is done when the promise settles.
 */
export async function reduceMemory(): Promise<void> {
  // loaded here, not at start: a Node built without the inspector throws on loading it (and on connecting), which
  // is then a rejection (the checks stop), never a room that cannot start or a throw from the timer
  const { Session } = await import('node:inspector');
  const session = new Session();
  session.connect();
  return new Promise<void>((resolve, reject) => {
    session.post('HeapProfiler.collectGarbage', (error) => {
      // never from inside the session's own callback: disconnecting there blocks the thread for good
      setImmediate(() => {
        session.disconnect();
        if (error) reject(error);
        else resolve();
      });
    });
  });
}

const sample = (): ProcessSample => {
  const cpu = process.cpuUsage();
  return { cpuUs: cpu.user + cpu.system, atMs: performance.now(), heapBytes: v8.getHeapStatistics().total_physical_size };
};

let holders = 0;
let timer: NodeJS.Timeout | undefined;

/**
 * Starts the checks for this process (one set however many rooms it runs: tests start several); returns a stop.
 * The timer never keeps the process alive.
 */
export function startIdleCollect(options: IdleCollectOptions = {}): () => void {
  holders++;
  if (!timer) {
    const decide = new IdleCollect(options);
    let collecting = false;
    timer = setInterval(() => {
      if (collecting || !decide.check(sample())) return;
      collecting = true;
      reduceMemory().then(
        () => {
          collecting = false;
          const after = sample();
          decide.collected(after.heapBytes, after.cpuUs, after.atMs);
        },
        // no inspector in this build of Node: V8 collects on its own schedule, as before
        () => clearInterval(timer),
      );
    }, CHECK_MS);
    timer.unref();
  }
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (--holders > 0) return;
    clearInterval(timer);
    timer = undefined;
  };
}
