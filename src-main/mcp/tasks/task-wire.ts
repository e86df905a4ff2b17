import { ProtocolError } from '@modelcontextprotocol/server';
import { isDiskFullError, isRoomError, toPublicError } from '../../common/errors';
import { taskLogUri, type TaskRecord } from '../../common/task-record';
import { HANDOFF_OPERATION } from '../../engine/index';
import { RPC, rpcError } from '../transport/rpc-errors';

/**
 * The two wire shapes of one task record: 2025-11-25 core tasks (ttl, pollInterval) and the 2026-07-28
 * extension (ttlMs, pollIntervalMs, and the detailed form with inputRequests / result / error by status).
 */
/**
 * Where a task's partial output lives (seed 004: a task advertises its task-log:// resource). A vendor key in
 * the task's `_meta`, since the protocol has no field for it; the URI is the resource to read or subscribe to.
 */
export const TASK_LOG_META_KEY = 'commonroom/taskLog';

/** A handoff's task names its handoff (the task's correlation id) beside it, under this key. */
export const HANDOFF_META_KEY = 'commonroom/handoffId';

function taskCore(t: TaskRecord): Record<string, unknown> {
  return {
    _meta: { [TASK_LOG_META_KEY]: taskLogUri(t.id), ...(t.operation === HANDOFF_OPERATION ? { [HANDOFF_META_KEY]: t.correlationId } : {}) },
    taskId: t.id,
    status: t.status,
    ...(t.statusMessage ? { statusMessage: t.statusMessage } : {}),
    createdAt: t.createdAt,
    lastUpdatedAt: t.updatedAt,
  };
}

export function toTaskV1(t: TaskRecord): Record<string, unknown> {
  return { ...taskCore(t), ttl: t.ttlMs, pollInterval: t.pollIntervalMs };
}

export function toTaskV2(t: TaskRecord): Record<string, unknown> {
  return { ...taskCore(t), ttlMs: t.ttlMs, pollIntervalMs: t.pollIntervalMs };
}

/** The 2026 DetailedTask: what tasks/get and notifications/tasks carry. */
export function toDetailedTaskV2(t: TaskRecord, resultOf: (t: TaskRecord) => Record<string, unknown>): Record<string, unknown> {
  const base = toTaskV2(t);
  switch (t.status) {
    case 'input_required':
      return { ...base, inputRequests: t.inputRequests ?? {} };
    case 'completed':
      // the inlined result is a complete 2026 CallToolResult, so it carries its own resultType
      return { ...base, result: { resultType: 'complete', ...resultOf(t) } };
    case 'failed':
      return { ...base, error: t.error ?? { code: RPC.internalError, message: t.statusMessage ?? 'task failed' } };
    default:
      return base;
  }
}

/**
 * Engine refusals on tasks/* as JSON-RPC errors (codes from the one table in rpc-errors.ts). Unknown and
 * not-yours are one error (-32602 "unknown task"); anything unexpected is -32603 with no details.
 */
export function taskProtocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (isRoomError(error) && error.code !== 'INTERNAL') {
    return rpcError(error.code, error.code === 'NOT_FOUND' ? 'unknown task' : error.message);
  }
  if (isDiskFullError(error)) {
    const pub = toPublicError(error);
    return rpcError(pub.code, pub.message);
  }
  // one line: a client must not be able to fill the log with stack traces (COMMONROOM_DEBUG shows them)
  console.error(`[mcp] task request failed: ${error instanceof Error ? error.message.split('\n')[0] : 'non-error thrown'}`);
  if (process.env.COMMONROOM_DEBUG) console.error(error);
  return rpcError('INTERNAL', 'internal error: the runner logged the details');
}

export async function asTaskCall<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw taskProtocolError(error);
  }
}
