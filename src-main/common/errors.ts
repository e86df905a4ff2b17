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
  return { code: 'INTERNAL', message: 'internal error: the runner logged the details' };
}
