/**
 * A desktop notification when something new waits in the inbox. Uses the web Notifications API (Electron's
 * renderer maps it to a native notification; a browser under `serve` shows it once the person allowed it).
 * Never asks by itself: permission is asked from a click (askNotificationPermission), and everything is
 * skipped quietly where the API does not exist.
 */
import type { InboxItem } from './inbox-store';

export function notificationsAvailable(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

export function notificationPermission(): NotificationPermission | 'unavailable' {
  return notificationsAvailable() ? Notification.permission : 'unavailable';
}

export async function askNotificationPermission(): Promise<NotificationPermission | 'unavailable'> {
  if (!notificationsAvailable()) return 'unavailable';
  try {
    return await Notification.requestPermission();
  } catch {
    return Notification.permission;
  }
}

const WHAT: Record<InboxItem['kind'], string> = {
  approve: 'A result waits for your approval',
  input: 'An agent asks for your input',
  addressed: 'A handoff was addressed to you',
};

export function notifyArrivals(items: InboxItem[]): void {
  if (!notificationsAvailable() || Notification.permission !== 'granted') return;
  for (const item of items.slice(0, 3)) {
    try {
      new Notification(WHAT[item.kind], { body: item.handoff.summary.slice(0, 200), tag: `inbox-${item.handoff.id}` });
    } catch {
      // some environments expose the constructor but refuse it (e.g. without a service worker): stay quiet
    }
  }
}
