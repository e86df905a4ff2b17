import type { Page } from 'playwright-core';

interface Inspect {
  terminalText(shellId: string, lastLines?: number): string | null;
  terminalSize(shellId: string): { cols: number; rows: number } | null;
}

/** The text the page's terminal for `shellId` holds (its last `lastLines` lines), through the renderer's read-only inspector. */
export function terminalText(page: Page, shellId: string, lastLines = 200): Promise<string> {
  return page.evaluate(([id, n]) => (globalThis as unknown as { commonroomInspect: Inspect }).commonroomInspect.terminalText(id, n) ?? '', [shellId, lastLines] as const);
}

export function terminalSize(page: Page, shellId: string): Promise<{ cols: number; rows: number } | null> {
  return page.evaluate((id) => (globalThis as unknown as { commonroomInspect: Inspect }).commonroomInspect.terminalSize(id), shellId);
}

/** Polls `probe` until it returns a value (not null), for at most `timeoutMs`. */
export async function waitFor<T>(probe: () => Promise<T | null>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > end) throw new Error('waited too long');
    await new Promise((r) => setTimeout(r, 100));
  }
}
