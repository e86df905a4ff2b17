import { z } from 'zod';
import { ProtocolError, ProtocolErrorCode, RELATED_TASK_META_KEY, type Server } from '@modelcontextprotocol/server';
import type { Caller } from '../../common/dto';
import { isTerminalTask } from '../../common/task-machine';
import type { DoorEngine } from '../../engine/index';
import type { TaskRecord } from '../../common/task-record';
import { asTaskCall, toTaskV1 } from './task-wire';
import { requireTasksVersion } from '../transport/versions-2025';
import { lazily } from '../../common/lazily';

// built on the first 2025 session's server (2026 requests never need it)
const TaskIdParams = lazily(() => z.object({ taskId: z.string().max(200) }));

/** tasks/result calls waiting at once, per engine (every session counts): the next is refused, not queued. */
const resultWaiters = new WeakMap<DoorEngine, number>();

/**
 * 2025-11-25 core tasks over the one task store: tasks/get, tasks/result (waits without holding anything
 * else up: each request is its own handler on the session), tasks/list (the caller's), tasks/cancel, and
 * notifications/tasks/status for tasks this session made. Tasks belong to the participant, not the session,
 * so a new session (or a restarted runner) still finds them.
 */
export function registerLegacyTaskHandlers(server: Server, engine: DoorEngine, caller: Caller): void {
  const mine = new Set<string>();

  server.setRequestHandler('tasks/get', { params: TaskIdParams() }, ({ taskId }) => {
    requireTasksVersion(server, 'tasks/get');
    return asTaskCall(() => toTaskV1(engine.tasks.get(caller, taskId)));
  });

  server.setRequestHandler('tasks/list', { params: z.object({ cursor: z.string().max(512).optional() }) }, ({ cursor }) =>
    asTaskCall(() => {
      requireTasksVersion(server, 'tasks/list');
      const page = engine.tasks.list(caller, cursor, engine.limits.taskListPage);
      return { tasks: page.tasks.map(toTaskV1), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    }),
  );

  server.setRequestHandler('tasks/cancel', { params: TaskIdParams() }, ({ taskId }) => {
    requireTasksVersion(server, 'tasks/cancel');
    return asTaskCall(async () => {
      await engine.call(caller, 'task_cancel', { taskId });
      return toTaskV1(engine.tasks.get(caller, taskId));
    });
  });

  server.setRequestHandler('tasks/result', { params: TaskIdParams() }, async ({ taskId }, ctx) => {
    requireTasksVersion(server, 'tasks/result');
    let task = await asTaskCall(() => engine.tasks.get(caller, taskId));
    const max = engine.limits.maxTaskResultWaiters;
    if ((resultWaiters.get(engine) ?? 0) >= max) {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `too many tasks/result calls waiting (${max}): poll tasks/get instead; the task keeps running and its record keeps the outcome`);
    }
    resultWaiters.set(engine, (resultWaiters.get(engine) ?? 0) + 1);
    const asked = new Set<string>();
    try {
      for (;;) {
        const next = await engine.tasks.waitFor(taskId, (t) => isTerminalTask(t.status) || (t.status === 'input_required' && hasUnasked(t, asked)), ctx.mcpReq.signal);
        if (!next) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'the request was cancelled, or the task was removed');
        task = next;
        if (isTerminalTask(task.status)) break;
        // input_required: ask the client through elicitation on this stream, tagged with the task
        for (const [key, request] of Object.entries(task.inputRequests ?? {})) {
          if (asked.has(key)) continue;
          asked.add(key);
          const req = request as { method?: string; params?: Record<string, unknown> };
          if (req.method !== 'elicitation/create') continue;
          try {
            const answer = await ctx.mcpReq.send({
              method: 'elicitation/create',
              params: { ...req.params, _meta: { [RELATED_TASK_META_KEY]: { taskId } } },
            });
            await engine.call(caller, 'task_answer', { taskId, responses: { [key]: answer } });
          } catch {
            // the client cannot elicit (or declined to answer): someone else may still answer through another door
          }
        }
      }
    } finally {
      resultWaiters.set(engine, (resultWaiters.get(engine) ?? 1) - 1);
    }
    const related = { [RELATED_TASK_META_KEY]: { taskId } };
    if (task.status === 'completed') {
      const result = engine.tasks.resultOf(task);
      return { ...result, _meta: { ...(result._meta as object | undefined), ...related } } as never;
    }
    if (task.status === 'failed') {
      const error = task.error ?? { code: ProtocolErrorCode.InternalError, message: task.statusMessage ?? 'task failed' };
      throw new ProtocolError(error.code, error.message, error.data);
    }
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `the task was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ''}`);
  });

  // status notifications for the tasks this session created (optional in the spec; clients must not rely on them)
  const unsubscribe = engine.tasks.onChange((taskId) => {
    if (!mine.has(taskId)) return;
    let task: TaskRecord;
    try {
      task = engine.tasks.get(caller, taskId);
    } catch {
      mine.delete(taskId);
      return;
    }
    void server.notification({ method: 'notifications/tasks/status', params: toTaskV1(task) }).catch(() => undefined);
    if (isTerminalTask(task.status)) mine.delete(taskId);
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    previousOnClose?.();
  };
  trackCreatedTasks(server, mine);
}

function hasUnasked(task: TaskRecord, asked: Set<string>): boolean {
  return Object.keys(task.inputRequests ?? {}).some((k) => !asked.has(k));
}

/** Remembers the task ids this session's tools/call answers carried. */
function trackCreatedTasks(server: Server, mine: Set<string>): void {
  const tracked = server as Server & { noteTask?: (id: string) => void };
  tracked.noteTask = (id) => mine.add(id);
}

export function noteCreatedTask(server: Server, taskId: string): void {
  (server as Server & { noteTask?: (id: string) => void }).noteTask?.(taskId);
}
