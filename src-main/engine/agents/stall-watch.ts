import fs from 'node:fs';
import { findTagged } from '../process/process-tree';

/**
 * Whether an agent that reads working has gone quiet: its terminal (no output, or output that changes no word
 * on its screen: a spinner's redraw, a timer counting), its CPU (under 5% of one core between two looks) and
 * its process tree (the same processes) all still since `quietSince`. A stall is that quiet lasting `stallMs`;
 * anything that moves, or a status other than working, ends it. Fed one look per tick (agent-watch.ts).
 */
export interface StallLook {
  /** Monotonic milliseconds. */
  at: number;
  working: boolean;
  /** The screen's words (digits and spinner glyphs left out), or the output's length where no screen is read. */
  screen: string;
  /** The last keys typed into it (milliseconds since the epoch), 0: none. */
  inputAt: number;
  tree: TreeSample | null;
}

export interface TreeSample {
  /** Its processes, by pid and start time. */
  processes: string;
  /** CPU time its processes used, in milliseconds. */
  cpuMs: number;
}

/**
 * A CPU share under this, between two looks, is quiet (a TUI at rest redraws a little); and never less than
 * QUIET_CPU_MS, the grain Linux counts CPU time in being 10 ms (one tick in a short look is no work).
 */
const QUIET_CPU_SHARE = 0.05;
const QUIET_CPU_MS = 30;

export class StallWatch {
  private last: StallLook | null = null;
  private quietFrom: number | null = null;

  /** Where the quiet began (monotonic ms), or null: it moves, or it is not working. */
  get quietSince(): number | null {
    return this.quietFrom;
  }

  /** One look: how long it has been quiet while working (0: not quiet). */
  look(now: StallLook): number {
    const before = this.last;
    this.last = now;
    if (!now.working) {
      this.quietFrom = null;
      return 0;
    }
    if (!before || !before.working || moved(before, now)) {
      this.quietFrom = now.at;
      return 0;
    }
    this.quietFrom ??= before.at;
    return now.at - this.quietFrom;
  }

  /** Forget the quiet so far (the room just acted on it: an interrupt is movement of its own). */
  reset(): void {
    this.last = null;
    this.quietFrom = null;
  }
}

function moved(a: StallLook, b: StallLook): boolean {
  if (a.screen !== b.screen || a.inputAt !== b.inputAt) return true;
  if (!a.tree || !b.tree) return false; // where the tree cannot be read, the terminal alone says
  if (a.tree.processes !== b.tree.processes) return true;
  return b.tree.cpuMs - a.tree.cpuMs > Math.max(QUIET_CPU_MS, QUIET_CPU_SHARE * (b.at - a.at));
}

/** A screen's words: what a redraw that only turns a spinner or counts seconds does not change. */
export function screenWords(lines: readonly string[]): string {
  return lines.map((l) => l.replace(/[^\p{L}\s]+/gu, '').replace(/\s+/g, ' ').trim()).filter((l) => l !== '').join('\n');
}

const TICK_MS = 1000 / 100; // USER_HZ: Linux reports CPU time in 1/100 s

/**
 * The processes carrying a shell's tag and the CPU time they used, from Linux's /proc; null where there is
 * none (the terminal alone then says whether it is quiet).
 */
export function sampleTree(tag: string): TreeSample | null {
  if (process.platform !== 'linux') return null;
  try {
    const found = findTagged(tag).sort((a, b) => a.pid - b.pid);
    let ticks = 0;
    for (const p of found) {
      try {
        const stat = fs.readFileSync(`/proc/${p.pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
      } catch {
        // gone meanwhile: the process list changed, which the next look sees
      }
    }
    return { processes: found.map((p) => `${p.pid}:${p.startTime}`).join(','), cpuMs: ticks * TICK_MS };
  } catch {
    return null;
  }
}
