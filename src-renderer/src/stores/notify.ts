/**
 * A desktop notification when something new waits in the inbox. Inside the desktop app the main process shows
 * a native one (Electron's Notification; a click brings the handoff up); in a browser under `serve` the web
 * Notifications API shows it once the person allowed it.
 * Never asks by itself: permission is asked from a click (askNotificationPermission), and everything is
 * skipped quietly where the API does not exist.
 */
import type { InboxItem } from './inbox-store';
import type { ShellView } from '../../../src-main/common/methods/shells';
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
  doing: 'A handoff you took on waits for your result',
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

/** Agents the person turned notifications off for, by participant (kept in this browser/app). */
const MUTED_KEY = 'commonroom.notify.muted';
export function mutedAgents(): Set<string> {
  try {
    return new Set(JSON.parse(localStorage.getItem(MUTED_KEY) ?? '[]') as string[]);
  } catch {
    return new Set();
  }
}
export function setAgentMuted(participant: string, muted: boolean): void {
  const all = mutedAgents();
  if (muted) all.add(participant);
  else all.delete(participant);
  try {
    localStorage.setItem(MUTED_KEY, JSON.stringify([...all]));
  } catch {
    // storage refused (a private window): the choice lasts this page only
  }
}

/**
 * A notification that a terminal waits for the person: its agent (or its owner) and what it asks. Once per
 * wait (the caller keys it by the status's `since`); a click brings its terminal up (`onOpen`).
 */
export function notifyShellWaiting(shell: ShellView, onOpen: (shellId: string) => void): void {
  const who = shell.agent ? `${shell.agent.label} (${shell.agent.participant})` : shell.name;
  if (mutedAgents().has(shell.agent?.participant ?? shell.owner)) return;
  const title = `${who} is waiting for you`;
  const body = (shell.status.reason ?? 'it asks for your input').slice(0, 200);
  if (desktop) {
    desktop.notify({ title, body, shellId: shell.id });
    return;
  }
  if (!notificationsAvailable() || Notification.permission !== 'granted') return;
  try {
    const note = new Notification(title, { body, tag: `shell-${shell.id}` });
    note.onclick = () => {
      window.focus();
      onOpen(shell.id);
      note.close();
    };
  } catch {
    // refused by the environment: the sidebar's count still says it
  }
}

/**
 * One notification when an agent on a task is "ready for review?" (idle at its prompt with new commits in its
 * worktree): once per head commit (the caller keys it); a click brings its terminal up (`onOpen`).
 */
export function notifyReadyForReview(run: { shellId: string; participant: string; label: string; review: { commits: number } | null }, onOpen: (shellId: string) => void): void {
  if (!run.review || mutedAgents().has(run.participant)) return;
  const title = `${run.label} (${run.participant}): ready for review?`;
  const body = `It waits at its prompt with ${run.review.commits} new commit${run.review.commits === 1 ? '' : 's'} in its worktree. Complete it for it, or tell it more.`;
  if (desktop) {
    desktop.notify({ title, body, shellId: run.shellId });
    return;
  }
  if (!notificationsAvailable() || Notification.permission !== 'granted') return;
  try {
    const note = new Notification(title, { body, tag: `review-${run.shellId}` });
    note.onclick = () => {
      window.focus();
      onOpen(run.shellId);
      note.close();
    };
  } catch {
    // refused by the environment: the Terminals screen still offers it
  }
}

/**
 * One notification when an agent the room started stalls or stops at its usage limit (the caller keys it by the
 * condition's `since`: once each time); its words say what the room will do. A click brings its terminal up.
 */
export function notifyAgentCondition(shell: ShellView, onOpen: (shellId: string) => void): void {
  const c = shell.condition;
  if (!shell.agent || !c || mutedAgents().has(shell.agent.participant)) return;
  const who = `${shell.agent.label} (${shell.agent.participant})`;
  const title = c.limited ? `${who} hit a usage limit` : `${who} has stalled`;
  const until = c.limited?.until ? new Date(c.limited.until).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : null;
  const body = c.limited
    ? `${c.limited.text.slice(0, 150)}${c.limited.resumeAt ? ` · the room resumes it at ${until}` : until ? ` · resets ${until}: resume it from its terminal` : ''}`
    : 'It reads busy, but its terminal, CPU and processes have been still.';
  if (desktop) {
    desktop.notify({ title, body, shellId: shell.id });
    return;
  }
  if (!notificationsAvailable() || Notification.permission !== 'granted') return;
  try {
    const note = new Notification(title, { body, tag: `condition-${shell.id}` });
    note.onclick = () => {
      window.focus();
      onOpen(shell.id);
      note.close();
    };
  } catch {
    // refused by the environment: its terminal's badge still says it
  }
}
