import { controlsToSpaces } from '../common/ansi';
import { DESKTOP_NOTE_LIMITS, type DesktopNote } from '../common/ipc';

function text(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  const clean = controlsToSpaces(value).trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/**
 * A notification request from the renderer, checked: three strings (cut to size, control characters made
 * spaces), a handoff id of the room's shape. Anything else is refused (null); the sender was checked already.
 */
export function parseDesktopNote(raw: unknown): DesktopNote | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const record = raw as Record<string, unknown>;
  const title = text(record.title, DESKTOP_NOTE_LIMITS.title);
  const body = text(record.body, DESKTOP_NOTE_LIMITS.body);
  // exactly one of the two: what a click shows
  const id = (value: unknown) => typeof value === 'string' && /^[A-Za-z0-9_:.-]{1,128}$/.test(value);
  const { handoffId, shellId } = record;
  if (!title || body === null || (handoffId !== undefined) === (shellId !== undefined)) return null;
  if (handoffId !== undefined) return id(handoffId) ? { title, body, handoffId: handoffId as string } : null;
  return id(shellId) ? { title, body, shellId: shellId as string } : null;
}
