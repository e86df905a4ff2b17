// Small statistics for benchmarks: medians and spreads over rounds, percentiles over samples.
import { performance } from 'node:perf_hooks';

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const median = (values) => percentile(values, 50);

/** The spread of per-round figures as ± percent of their median (half the min–max range). */
export function spreadPct(values) {
  if (values.length < 2) return 0;
  const m = median(values);
  if (!m) return 0;
  return ((Math.max(...values) - Math.min(...values)) / 2 / Math.abs(m)) * 100;
}

/**
 * Runs `ours` and `baseline` alternately for `rounds` rounds (which goes first alternates too, so a slow
 * drift of the shared machine's load hits both sides alike) and returns each side's per-round results.
 */
export async function alternate(rounds, ours, baseline) {
  const a = [];
  const b = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      a.push(await ours(i));
      b.push(await baseline(i));
    } else {
      b.push(await baseline(i));
      a.push(await ours(i));
    }
  }
  return { ours: a, baseline: b };
}

export const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));
export const fmtMs = (n) => (n < 10 ? `${fmt(n, 2)} ms` : `${fmt(n, 1)} ms`);
export const nowMs = () => performance.now();
