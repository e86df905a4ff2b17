import { DESKTOP_NOTE_LIMITS, type DesktopNote } from '../common/ipc';

/** Control characters (C0, DEL, C1) in agent-written text are shown as spaces in a notification. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]+/g;

function text(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  const clean = value.replace(CONTROLS, ' ').trim();
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
