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

/**
 * The WCAG 2 contrast of an element's text (`text`) on what a person sees behind it: the (maybe translucent) tint
 * of its `tinted` ancestor (or itself) laid over the background of the `over` ancestor of that — the badge of a
 * selected row on the row's tint over the list, the active sidebar item on its tint over the sidebar.
 */
export function tintContrast(page: Page, text: string, tintedBy: string, over: string): Promise<number> {
  return page.evaluate(
    ([sel, tint, under]) => {
      const rgba = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
      const el = document.querySelector(sel) as HTMLElement;
      const tinted = el.closest(tint) as HTMLElement;
      const [r, g, b] = rgba(getComputedStyle(el).color);
      const [tr, tg, tb, ta = 1] = rgba(getComputedStyle(tinted).backgroundColor);
      const [sr, sg, sb] = rgba(getComputedStyle(tinted.closest(under) as HTMLElement).backgroundColor);
      const behind = [tr, tg, tb].map((v, i) => (v as number) * ta + ([sr, sg, sb][i] as number) * (1 - ta));
      const lum = (c: number[]) => {
        const [lr, lg, lb] = c.map((v) => {
          const x = v / 255;
          return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * (lr as number) + 0.7152 * (lg as number) + 0.0722 * (lb as number);
      };
      const [hi, lo] = [lum([r, g, b] as number[]), lum(behind)].sort((x, y) => y - x) as [number, number];
      return (hi + 0.05) / (lo + 0.05);
    },
    [text, tintedBy, over] as const,
  );
}
