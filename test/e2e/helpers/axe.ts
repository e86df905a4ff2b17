/**
 * axe-core (the accessibility engine of Lighthouse and the browsers' devtools) run in the page: injected through
 * the DevTools protocol (page.evaluate), so the page's own Content-Security-Policy, which allows no script but
 * its own, needs no loosening. Counts by impact, and the serious and critical findings spelt out for a failure.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeCount {
  screen: string;
  scheme: string;
  critical: number;
  serious: number;
  moderate: number;
  minor: number;
  /** Each serious or critical rule broken, with where (the first few targets). */
  findings: string[];
}

interface Violation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

export async function axeCount(page: Page, screen: string, scheme: string): Promise<AxeCount> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, options: object): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  }) as Violation[];
  const count: AxeCount = { screen, scheme, critical: 0, serious: 0, moderate: 0, minor: 0, findings: [] };
  for (const v of violations) {
    const impact = v.impact ?? 'minor';
    count[impact] += v.nodes.length;
    if (impact === 'serious' || impact === 'critical') {
      count.findings.push(`${impact} ${v.id} (${v.help}) ×${v.nodes.length}: ${v.nodes.slice(0, 3).map((n) => `${JSON.stringify(n.target)} ${n.failureSummary?.split('\n').slice(1, 2).join('') ?? ''}`).join(' | ')}`);
    }
  }
  return count;
}

/** The counts as a table for the test's output. */
export function printAxeCounts(counts: AxeCount[]): void {
  console.log(`axe-core ${JSON.parse(fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/package.json'), 'utf8')).version as string}: violations per screen (nodes)`);
  console.table(counts.map(({ screen, scheme, critical, serious, moderate, minor }) => ({ screen, scheme, critical, serious, moderate, minor })));
}
