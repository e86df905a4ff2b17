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
  const handoffId = record.handoffId;
  if (!title || body === null || typeof handoffId !== 'string' || !/^[A-Za-z0-9_:.-]{1,128}$/.test(handoffId)) return null;
  return { title, body, handoffId };
}
