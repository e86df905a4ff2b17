import { ProtocolError } from '@modelcontextprotocol/server';
import type { ErrorCode } from '../../common/errors';
import { TASK_ERROR_CODES } from '../../common/task-record';

/**
 * The MCP door's one table of JSON-RPC error codes: every code this door (and the front door, for /mcp)
 * sends is named here, each with one meaning. The -32000…-32019 range is implementation-defined (MCP
 * 2026-07-28); -32020…-32022 are the spec's header/capability/version errors.
 */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** The transport refused the request (Host, Origin, HTTP method, missing session header, too many streams). */
  transportRefused: -32000,
  /** A task that ran out of time (the value MCP SDKs use for a request timeout; written into expired task rows). */
  requestTimeout: TASK_ERROR_CODES.expired,
  /** No or a wrong bearer token (HTTP 401). */
  unauthenticated: -32010,
  /** The Mcp-Session-Id names no live session (HTTP 404: initialize again). */
  sessionNotFound: -32011,
  /** The session belongs to another participant (HTTP 403). */
  sessionForbidden: -32012,
  /** A resumed 2025 stream's answer that was too large to keep for replay: send the same call again. */
  replayDropped: -32013,
  headerMismatch: -32020,
  missingRequiredClientCapability: -32021,
} as const;

/**
 * Engine refusals on protocol requests (tasks/*, resources/*): the JSON-RPC code for each engine error code.
 * Unknown and not-yours are one answer (NOT_FOUND → invalid params), so a caller learns nothing from the code.
 */
export const RPC_FOR_ERROR: Record<ErrorCode, number> = {
  INVALID_INPUT: RPC.invalidParams,
  NOT_FOUND: RPC.invalidParams,
  FORBIDDEN: RPC.invalidParams,
  CONFLICT: RPC.invalidParams,
  LIMIT_EXCEEDED: RPC.invalidRequest,
  UNAUTHENTICATED: RPC.unauthenticated,
  ROOM_LOCKED: RPC.internalError,
  ROOM_UNSAFE: RPC.internalError,
  ROOM_TOO_NEW: RPC.internalError,
  UNAVAILABLE: RPC.internalError,
  DISK_FULL: RPC.internalError,
  INTERNAL: RPC.internalError,
};

/** An engine error code as a JSON-RPC error the SDK sends as it is. */
export function rpcError(code: ErrorCode, message: string): ProtocolError {
  return new ProtocolError(RPC_FOR_ERROR[code], message);
}
