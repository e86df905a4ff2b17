import fs from 'node:fs';
import path from 'node:path';
import { REPO } from '../helpers/env';

/**
 * One scenario code path, two sizes: `npm run soak` sets SOAK_SCALE=full (the counts of issue 14), `npm test`
 * runs the same code with the small counts. Only the full run rewrites RELIABILITY.md.
 */
export const FULL = process.env.SOAK_SCALE === 'full';

/** SOAK_FRACTION (0–1) shrinks a full run when time is short; the figures written say what was counted. */
const FRACTION = Math.min(1, Math.max(0, Number(process.env.SOAK_FRACTION ?? 1) || 1));

export function sized(full: number, fast: number): number {
  return FULL ? Math.max(fast, Math.round(full * FRACTION)) : fast;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

const REPORT = path.join(REPO, 'RELIABILITY.md');
const BEGIN = '<!-- soak:begin -->';
const END = '<!-- soak:end -->';
const INTRO = `# Reliability figures

Written by \`npm run soak\` (test/soak/, vitest.soak.config.ts): real \`commonroom serve\` processes, real MCP
clients of both protocol eras, real PTYs and process trees. Each run rewrites the table below; a row per
scenario, the figure column says what was counted. A row is only written when its scenario's assertions passed
(violations are asserted to be 0, so a failing run leaves the previous row in place).
`;

/** Replaces this scenario's row in RELIABILITY.md (full runs only); other scenarios' rows stay. */
export function report(scenario: string, figures: string): void {
  if (!FULL) return;
  const text = fs.existsSync(REPORT) ? fs.readFileSync(REPORT, 'utf8') : '';
  const body = text.includes(BEGIN) ? text.slice(text.indexOf(BEGIN) + BEGIN.length, text.indexOf(END)) : '';
  const rows = new Map<string, string>();
  for (const line of body.split('\n')) {
    const m = /^\| ([^|]+?) \| (.*) \| ([^|]+) \|$/.exec(line);
    if (m && m[1] !== 'scenario' && !m[1]?.startsWith('---')) rows.set(m[1] as string, line);
  }
  const when = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  rows.set(scenario, `| ${scenario} | ${figures} | ${when} |`);
  const table = ['| scenario | figures | run at |', '| --- | --- | --- |', ...[...rows.values()]].join('\n');
  // what follows the table (notes on the last full run) is kept as it is
  const after = text.includes(END) ? text.slice(text.indexOf(END) + END.length) : '';
  fs.writeFileSync(REPORT, `${INTRO}\n${BEGIN}\n${table}\n${END}${after.length > 0 ? after : '\n'}`);
}
