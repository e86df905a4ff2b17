import type { TaskStatus } from './task-machine';

/**
 * One task as the engine hands it to a door (MCP tasks/*, `ce task`): the fields both MCP task wire shapes
 * are built from. Doors use this, never the store's rows; the store's task repository returns this shape.
 */
export interface TaskRecord {
  id: string;
  operation: string;
  owner: string;
  assignee: string | null;
  status: TaskStatus;
  statusMessage: string | null;
  createdAt: string;
  updatedAt: string;
  /** null: kept until removed on purpose (graph runs). */
  ttlMs: number | null;
  pollIntervalMs: number;
  correlationId: string;
  schemaVersion: number;
  result: unknown;
  error: { code: number; message: string; data?: unknown } | null;
  inputRequests: Record<string, unknown> | null;
}

/**
 * The JSON-RPC codes a task's own `error` carries (tasks/result and tasks/get show them as they are). The
 * engine writes them into task rows; the MCP door's code table (mcp/transport/rpc-errors.ts) names the same values.
 */
export const TASK_ERROR_CODES = {
  /** The work failed or the runner stopped while it ran. */
  failed: -32603,
  /** The task outlived its TTL (the request-timeout code MCP SDKs use). */
  expired: -32001,
} as const;

/** Where a task's records are read (seed 004: a task advertises its task-log:// resource). */
export function taskLogUri(taskId: string): string {
  return `task-log://${encodeURIComponent(taskId)}`;
}
