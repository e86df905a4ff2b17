import type { RoomSummary, SummaryItem } from './methods/summary';

const MARK = { good: '✓', bad: '✗', plain: '·' } as const;
const flat = (text: string, max: number): string => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

function itemLines(i: SummaryItem, when: (iso: string) => string, ids: boolean): string[] {
  const host = i.host && !i.text.includes(`on ${i.host}`) ? ` [on ${i.host}]` : '';
  const id = ids && i.subject ? ` (${i.subject})` : '';
  return [`  ${MARK[i.tone ?? 'plain']} ${when(i.at).padStart(12)}  ${flat(i.text, 140)}${host}${id}`, ...(i.detail ?? []).map((d) => `${' '.repeat(18)}${flat(d, 120)}`)];
}

/**
 * The morning summary as lines of text: `ce summary` (times in the reader's zone) and the text beside an MCP
 * answer (ISO times, each item's id for the next call). A section's title and counts, then its items.
 */
export function summaryLines(s: RoomSummary, when: (iso: string) => string, options: { ids?: boolean } = {}): string[] {
  const head = `Since ${when(s.since)}${s.partial ? ' (the room no longer keeps all of it: older events were dropped)' : ''}`;
  if ((s.sections ?? []).length === 0) return [`${head}: nothing waits for you and nothing ended.`];
  const out = [`${head}:`];
  for (const section of s.sections) {
    out.push('', `${section.title} (${section.counts})`);
    for (const item of section.items) out.push(...itemLines(item, when, options.ids ?? false));
    if (section.more > 0) out.push(`  … and ${section.more} more`);
  }
  return out;
}
