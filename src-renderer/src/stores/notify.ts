/**
 * A desktop notification when something new waits in the inbox. Inside the desktop app the main process shows
 * a native one (Electron's Notification; a click brings the handoff up); in a browser under `serve` the web
 * Notifications API shows it once the person allowed it.
 * Never asks by itself: permission is asked from a click (askNotificationPermission), and everything is
 * skipped quietly where the API does not exist.
 */
import type { InboxItem } from './inbox-store';
import type { DesktopLink } from '../transports/ipc-transport';

/** Set inside the desktop app: notifications go to the main process, which shows native ones. */
let desktop: DesktopLink | null = null;

export function sendNotificationsToDesktop(link: DesktopLink): void {
  desktop = link;
}

export function notificationsAvailable(): boolean {
  if (desktop) return true;
  return typeof window !== 'undefined' && 'Notification' in window;
}

export function notificationPermission(): NotificationPermission | 'unavailable' {
  if (desktop) return 'granted';
  return notificationsAvailable() ? Notification.permission : 'unavailable';
}

export async function askNotificationPermission(): Promise<NotificationPermission | 'unavailable'> {
  if (desktop) return 'granted';
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
  if (desktop) {
    for (const item of items.slice(0, 3)) desktop.notify({ title: WHAT[item.kind], body: item.handoff.summary.slice(0, 200), handoffId: item.handoff.id });
    return;
  }
  if (!notificationsAvailable() || Notification.permission !== 'granted') return;
  for (const item of items.slice(0, 3)) {
    try {
      new Notification(WHAT[item.kind], { body: item.handoff.summary.slice(0, 200), tag: `inbox-${item.handoff.id}` });
    } catch {
      // some environments expose the constructor but refuse it (e.g. without a service worker): stay quiet
    }
  }
}
