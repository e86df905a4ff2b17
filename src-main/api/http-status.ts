import type { ErrorCode } from '../common/errors';

/**
 * The HTTP door's one error table: the status for each engine error code. Doors map codes, never messages;
 * the front door uses the same table for the refusals it makes itself (401, 413, 400).
 */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  INVALID_INPUT: 400,
  NOT_FOUND: 404,
  FORBIDDEN: 403,
  UNAUTHENTICATED: 401,
  CONFLICT: 409,
  LIMIT_EXCEEDED: 429,
  ROOM_LOCKED: 409,
  ROOM_UNSAFE: 500,
  ROOM_TOO_NEW: 500,
  UNAVAILABLE: 503,
  // 507 Insufficient Storage: the server cannot store what the request needs
  DISK_FULL: 507,
  INTERNAL: 500,
};

/** The JSON body every API refusal carries: the stable code and a message a person can act on. */
export function apiErrorBody(code: ErrorCode, message: string): { error: { code: ErrorCode; message: string } } {
  return { error: { code, message } };
}
