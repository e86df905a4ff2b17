/**
 * Keyboard-only walking for the e2e tests: Tab (or Shift+Tab) until focus lands on what a person is after, as a
 * person who cannot use a mouse would, and the focus ring checked wherever it lands.
 */
import type { Page } from 'playwright-core';

/** What has focus now: a CSS selector it matches, and its text and accessible label. */
export function focused(page: Page): Promise<{ tag: string; text: string; label: string; testId: string | null; ring: boolean } | null> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return null;
    const style = getComputedStyle(el);
    // a ring: the element's own outline, or its host's (the terminal draws one around itself while typing goes to it)
    const host = el.closest('.terminal-host');
    const ring = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || (host !== null && getComputedStyle(host).boxShadow !== 'none');
    return { tag: el.tagName.toLowerCase(), text: (el.innerText ?? '').trim(), label: el.getAttribute('aria-label') ?? '', testId: el.getAttribute('data-testid'), ring };
  });
}

/**
 * Presses Tab until the focused element matches `selector` (at most `limit` presses), and answers whether it shows
 * a focus ring. Throws, naming where focus went, when it never gets there.
 */
export async function tabTo(page: Page, selector: string, options: { back?: boolean; limit?: number } = {}): Promise<{ ring: boolean }> {
  const visited: string[] = [];
  for (let i = 0; i < (options.limit ?? 80); i++) {
    await page.keyboard.press(options.back ? 'Shift+Tab' : 'Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) {
      return { ring: (await focused(page))?.ring ?? false };
    }
    const now = await focused(page);
    visited.push(now ? `${now.tag}${now.testId ? `[${now.testId}]` : ''} ${now.text.slice(0, 24) || now.label.slice(0, 24)}` : 'body');
  }
  throw new Error(`Tab never reached ${selector}; it went through: ${visited.join(' → ')}`);
}

export const isFocused = (page: Page, selector: string): Promise<boolean> => page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector);
