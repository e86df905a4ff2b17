import type { BrowserContext, Page } from 'playwright-core';

/**
 * Grants notifications and records what the page asks of the Notifications API (the real constructor still
 * runs): `title: body` per notification, read with `notesOf(page)`.
 */
export async function recordNotifications(context: BrowserContext): Promise<void> {
  await context.grantPermissions(['notifications']);
  await context.addInitScript(() => {
    const Real = window.Notification;
    const notes: string[] = [];
    (window as unknown as { __notes: string[] }).__notes = notes;
    class Recorded extends Real {
      constructor(title: string, options?: NotificationOptions) {
        super(title, options);
        notes.push(`${title}: ${options?.body ?? ''}`);
      }
    }
    Object.defineProperty(window, 'Notification', { value: Recorded, configurable: true, writable: true });
  });
}

export function notesOf(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __notes: string[] }).__notes);
}
