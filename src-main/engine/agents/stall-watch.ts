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
 * A CPU share under this, over the quiet so far, is quiet (a TUI at rest redraws a little); and never less than
 * QUIET_CPU_MS, the grain Linux counts CPU time in being 10 ms (a tick or two in a short quiet is no work).
 */
const QUIET_CPU_SHARE = 0.05;
const QUIET_CPU_MS = 30;

export class StallWatch {
  /** The look the quiet began at (null: it moves, or it is not working). */
  private anchor: StallLook | null = null;

  /** Where the quiet began (monotonic ms), or null: it moves, or it is not working. */
  get quietSince(): number | null {
    return this.anchor?.at ?? null;
  }

  /**
   * One look: how long it has been quiet while working (0: not quiet). Compared with the look the quiet began at,
   * so a little CPU now and then (a TUI at rest) adds up against the whole quiet, not against one short look.
   */
  look(now: StallLook): number {
    if (!now.working) {
      this.anchor = null;
      return 0;
    }
    if (!this.anchor || moved(this.anchor, now)) {
      this.anchor = now;
      return 0;
    }
    return now.at - this.anchor.at;
  }

  /** Forget the quiet so far. */
  reset(): void {
    this.anchor = null;
  }
}

/** Whether anything moved between the quiet's first look `a` and this one `b`. */
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
 * The processes carrying each of `tags` (shells' tags) and the CPU time they used, from Linux's /proc, in one
 * look at the process table for all of them; none where there is no /proc (the terminal alone then says
 * whether an agent is quiet).
 */
export function sampleTrees(tags: readonly string[]): Map<string, TreeSample> {
  const out = new Map<string, TreeSample>();
  if (process.platform !== 'linux' || tags.length === 0) return out;
  const wanted = new Set(tags);
  try {
    const found = findTagged('', { prefix: true }).filter((p) => wanted.has(p.tag)).sort((a, b) => a.pid - b.pid);
    for (const tag of tags) out.set(tag, { processes: '', cpuMs: 0 });
    for (const p of found) {
      const sample = out.get(p.tag) as TreeSample;
      sample.processes += `${p.pid}:${p.startTime},`;
      try {
        const stat = fs.readFileSync(`/proc/${p.pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        sample.cpuMs += (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime
      } catch {
        // gone meanwhile: the process list changed, which the next look sees
      }
    }
  } catch {
    out.clear();
  }
  return out;
}
