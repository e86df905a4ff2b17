import type { Caller } from '../../common/dto';
import type { TaskRecord } from '../store/tasks';
import { GRAPH_OPERATION } from './operations';

/**
 * Who may see a task that is not a handoff's (handoffs have their own rule, on the handoff row): its owner and
 * assignee; for a graph run also those who may see every graph (operate, approve); otherwise operators.
 * One rule for every door: MCP tasks/*, task logs, and `ce task` reading the room file.
 */
export function canSeeTask(caller: Caller, task: Pick<TaskRecord, 'owner' | 'assignee' | 'operation'>): boolean {
  if (task.owner === caller.name || task.assignee === caller.name) return true;
  if (task.operation === GRAPH_OPERATION) return caller.capabilities.includes('operate') || caller.capabilities.includes('approve');
  return caller.capabilities.includes('operate');
}
