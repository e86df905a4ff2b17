import { performance } from 'node:perf_hooks';
import { stripAnsi } from '../../common/ansi';
import { compileAgentPattern, type AgentPattern } from '../../common/safe-pattern';
import type { PtyShell } from './pty-shell';
import type { ShellState } from '../../common/methods/shells';

export type WaitSpec =
  | { until: 'match'; pattern: string; stopPatterns?: string[] | undefined; timeoutMs?: number | undefined }
  | { until: 'idle'; idleMs: number; timeoutMs?: number | undefined }
  | { until: 'exit'; timeoutMs?: number | undefined }
  | { until: 'status'; status: ShellState[]; timeoutMs?: number | undefined };

export interface WaitOutcome {
  /** What ended the wait: the pattern matched, a stop pattern matched (a failure), output went idle, the shell exited, or time ran out. */
  reason: 'matched' | 'stopped' | 'idle' | 'exited' | 'status' | 'timeout' | 'cancelled';
  /** The pattern that matched, and the matched text, for matched/stopped. */
  pattern?: string;
  match?: string;
  /** The timeout actually applied after clamping. */
  effectiveTimeoutMs: number;
}

/** Checks run at once while the text since `from` is at most this big, at most this many per period. */
const IMMEDIATE_CHECK_MAX_BYTES = 16 * 1024;
const IMMEDIATE_CHECKS_PER_PERIOD = 4;

export interface CompiledPatterns {
  match: AgentPattern;
  stops: AgentPattern[];
}

/**
 * Compiled patterns by source, newest use last: an agent repeats the same few waits (a prompt, a marker), and
 * compiling one with re2js costs more than the rest of a shell_io call (≈ 5 % of the room's CPU per call in the
 * shell-roundtrip profile, compiled twice). A compiled pattern holds no state between matches, so it is shared.
 */
const compiled = new Map<string, AgentPattern>();
const COMPILED_KEEP = 128;

function compileCached(source: string): AgentPattern {
  let re = compiled.get(source);
  if (re) {
    compiled.delete(source);
  } else {
    re = compileAgentPattern(source, { multiline: true });
    if (compiled.size >= COMPILED_KEEP) compiled.delete(compiled.keys().next().value as string);
  }
  compiled.set(source, re);
  return re;
}

/** Compiles an agent's patterns with RE2 (linear time); a bad one throws PatternError (the caller turns it into INVALID_INPUT). */
export function compilePatterns(spec: { pattern: string; stopPatterns?: string[] | undefined }): CompiledPatterns {
  return { match: compileCached(spec.pattern), stops: (spec.stopPatterns ?? []).map(compileCached) };
}

/**
 * Waits server-side on a shell's output from byte offset `from`. Patterns are matched against the
 * ANSI-stripped text of at most `windowBytes` from there (the newest part, if more arrived), checked at once on
 * the first change and then at most every `checkEveryMs`, so a flood of output costs bounded work.
 */
export function waitForOutput(
  session: PtyShell,
  from: number,
  spec: WaitSpec,
  options: { timeoutMs: number; windowBytes: number; signal?: AbortSignal | undefined; checkEveryMs?: number; patterns?: CompiledPatterns },
): Promise<WaitOutcome> {
  const effectiveTimeoutMs = options.timeoutMs;
  const patterns = spec.until === 'match' ? (options.patterns ?? compilePatterns(spec)) : null;
  const checkEveryMs = options.checkEveryMs ?? 20;

  return new Promise<WaitOutcome>((resolve) => {
    let done = false;
    let idleTimer: NodeJS.Timeout | undefined;
    let checkTimer: NodeJS.Timeout | undefined;
    let periodStart = -Infinity;
    let checksThisPeriod = 0;
    const finish = (outcome: Omit<WaitOutcome, 'effectiveTimeoutMs'>) => {
      if (done) return;
      done = true;
      clearTimeout(timeout);
      clearTimeout(idleTimer);
      clearTimeout(checkTimer);
      unsubscribe();
      offStatus();
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ ...outcome, effectiveTimeoutMs });
    };

    const checkPatterns = (): boolean => {
      if (!patterns) return false;
      const start = Math.max(from, session.ring.end - options.windowBytes);
      const text = stripAnsi(session.readText(start, options.windowBytes).text);
      let best: { reason: 'matched' | 'stopped'; pattern: string; match: string; index: number } | undefined;
      const consider = (re: AgentPattern, reason: 'matched' | 'stopped') => {
        const m = re.find(text);
        if (m && (!best || m.index < best.index)) best = { reason, pattern: re.source, match: m.text, index: m.index };
      };
      for (const stop of patterns.stops) consider(stop, 'stopped');
      consider(patterns.match, 'matched');
      if (!best) return false;
      finish({ reason: best.reason, pattern: best.pattern, match: best.match.slice(0, 1000) });
      return true;
    };

    const armIdle = () => {
      if (spec.until !== 'idle') return;
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => finish({ reason: 'idle' }), spec.idleMs);
    };

    const onChange = () => {
      if (done) return;
      if (!session.alive) {
        if (!checkPatterns()) finish({ reason: 'exited' });
        return;
      }
      armIdle();
      if (!patterns || checkTimer !== undefined) return;
      // an answer is usually the first output after the echo, so checks run at once: the first of each period,
      // and a few more while the text is small; the rest wait for the period's end, so a flood of output still
      // costs at most one large check per checkEveryMs
      const now = performance.now();
      if (now - periodStart >= checkEveryMs) {
        periodStart = now;
        checksThisPeriod = 0;
      }
      const small = session.ring.end - from <= IMMEDIATE_CHECK_MAX_BYTES;
      if (checksThisPeriod === 0 || (small && checksThisPeriod < IMMEDIATE_CHECKS_PER_PERIOD)) {
        checksThisPeriod++;
        checkPatterns();
        return;
      }
      checkTimer = setTimeout(() => {
        checkTimer = undefined;
        if (!done) checkPatterns();
      }, Math.max(0, periodStart + checkEveryMs - now));
    };
    const onAbort = () => finish({ reason: 'cancelled' });
    const unsubscribe = session.onChange(onChange);
    // a status wait ends on the tracker's change (a quiet timer's verdict too, which is no output change)
    const wanted = spec.until === 'status' ? spec.status : null;
    const offStatus = wanted ? session.onStatusChange((s) => wanted.includes(s.state) && finish({ reason: 'status' })) : () => undefined;
    const timeout = setTimeout(() => {
      if (!checkPatterns()) finish({ reason: 'timeout' });
    }, effectiveTimeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    // the text may already be there, the status already reached, or the shell already gone
    if (wanted?.includes(session.status.status.state)) finish({ reason: 'status' });
    else if (!checkPatterns()) {
      if (!session.alive) finish({ reason: 'exited' });
      else armIdle();
    }
  });
}
