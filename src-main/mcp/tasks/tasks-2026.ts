import { z } from 'zod';
import { ProtocolError, ProtocolErrorCode, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { Caller } from '../../common/dto';
import { isTerminalTask } from '../../common/task-machine';
import type { DoorEngine } from '../../engine/index';
import { asTaskCall, toDetailedTaskV2 } from './task-wire';
import { declaresTasksExtension, missingTasksExtension } from './tasks-extension';

const TaskIdParams = z.object({ taskId: z.string().max(200) });

function requireExtension(ctx: ServerContext): void {
  if (!declaresTasksExtension(ctx)) throw missingTasksExtension();
}

/**
 * The 2026-07-28 Tasks extension over the same store: tasks/get (detailed, resultType "complete"),
 * tasks/update (answers input requests; unknown or stale keys ignored), tasks/cancel (an acknowledgement:
 * a live task reads cancelled first, an ended one is left as it was). All need the extension declared on the
 * request (-32021 otherwise). The SDK checks that Mcp-Name equals the task id.
 */
export function registerModernTaskHandlers(server: Server, engine: DoorEngine, caller: Caller): void {
  server.setRequestHandler('tasks/get', { params: TaskIdParams }, ({ taskId }, ctx) => {
    requireExtension(ctx);
    return asTaskCall(() => {
      const task = engine.tasks.get(caller, taskId);
      return toDetailedTaskV2(task, (t) => engine.tasks.resultOf(t)) as never;
    });
  });

  // params.inputResponses is lifted into ctx.mcpReq.inputResponses by the SDK before validation
  server.setRequestHandler('tasks/update', { params: TaskIdParams }, async ({ taskId }, ctx) => {
    requireExtension(ctx);
    const responses = ctx.mcpReq.inputResponses;
    if (responses === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'tasks/update needs inputResponses');
    await asTaskCall(async () => {
      engine.tasks.get(caller, taskId);
      await engine.call(caller, 'task_answer', { taskId, responses });
    });
    return {} as never;
  });

  server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async ({ taskId }, ctx) => {
    requireExtension(ctx);
    await asTaskCall(async () => {
      const task = engine.tasks.get(caller, taskId);
      if (!isTerminalTask(task.status)) await engine.call(caller, 'task_cancel', { taskId });
    });
    return {} as never;
  });
}
