/**
 * Errors every door understands. A door maps `code` to its protocol (JSON-RPC code, HTTP status,
 * exit code); the message is for a person and says what to do next. Never carries a stack to a client.
 */
export const ERROR_CODES = [
  'INVALID_INPUT',
  'NOT_FOUND',
  'FORBIDDEN',
  'UNAUTHENTICATED',
  'CONFLICT',
  'LIMIT_EXCEEDED',
  'ROOM_LOCKED',
  'ROOM_UNSAFE',
  'ROOM_TOO_NEW',
  'UNAVAILABLE',
  /** The disk holding the room (or a stage's log) has no space left: the change was not made. */
  'DISK_FULL',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class RoomError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'RoomError';
    this.code = code;
    this.details = details;
  }
}

export function isRoomError(value: unknown): value is RoomError {
  return value instanceof RoomError;
}

/** What a client may see of any thrown value: known errors as they are, everything else opaque. */
export function toPublicError(value: unknown): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
  if (isRoomError(value)) {
    return value.details === undefined
      ? { code: value.code, message: value.message }
      : { code: value.code, message: value.message, details: value.details };
  }
  // the engine names the folder (Engine.call); anything that reached a door another way still says what to do
  if (isDiskFullError(value)) return { code: 'DISK_FULL', message: "the disk holding the room is full: free space on it, then try again (this change was not made)" };
  return { code: 'INTERNAL', message: 'internal error: the runner logged the details' };
}

/** SQLite's "database or disk is full" and the OS's "no space left" / "quota exceeded", as thrown by Node. */
export function isDiskFullError(value: unknown): boolean {
  const code = (value as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT';
}
