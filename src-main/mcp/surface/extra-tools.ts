import type { ServerContext } from '@modelcontextprotocol/server';
import type { Caller } from '../../common/dto';
import type { TaskRecord } from '../../common/task-record';

export type TaskSupport = 'forbidden' | 'optional' | 'required';

/**
 * A tool the MCP door serves besides the contract's methods. Production registers none: the only ones are
 * the conformance fixtures, registered by the test-only entry (src-main/testing/) through
 * `startRunner({ extraTools })`. They run over the same task store and task handlers as real tools.
 */
export interface ExtraTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
  /** Listed as `execution.taskSupport` when set; unset means the tool never runs as a task. */
  taskSupport?: TaskSupport;
  /** A plain call: the CallToolResult (or a 2026 input round) as the SDK should send it. */
  call(caller: Caller, args: Record<string, unknown>, ctx: ServerContext): Promise<Record<string, unknown>>;
  /** Starts the tool as a task; the task row is durable before this returns. */
  startTask?(caller: Caller, args: Record<string, unknown>): TaskRecord;
}
