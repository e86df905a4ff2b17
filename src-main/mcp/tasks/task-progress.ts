import type { Server } from '@modelcontextprotocol/server';
import type { Caller } from '../../common/dto';
import { isTerminalTask } from '../../common/task-machine';
import type { DoorEngine } from '../../engine/index';
import { GRAPH_OPERATION } from '../../engine/index';

type ProgressToken = string | number;

/** Progress followers per session, so a session that ends stops its followers. */
const followers = new WeakMap<Server, Set<() => void>>();

/**
 * 2025-11-25: the progressToken of a task-augmented request stays valid for the task's lifetime. For a graph
 * run, this session hears `notifications/progress` each time a stage ends (progress = stages done, total = all
 * stages, message = the task's statusMessage), until the task ends. Progress only ever grows, as the protocol
 * asks. 2026-07-28 has no progress for tasks: there the statusMessage (and notifications/tasks) carries it.
 */
export function followGraphProgress(server: Server, engine: DoorEngine, caller: Caller, taskId: string, progressToken: ProgressToken): void {
  const task = engine.tasks.find(caller, taskId);
  if (task?.operation !== GRAPH_OPERATION) return;
  let last = -1;
  let chain = Promise.resolve();
  // one report at a time, in order: each reads the graph as it stands when its turn comes
  const send = () => {
    chain = chain.then(report, () => undefined);
  };
  const report = async () => {
    let progress: { done: number; total: number };
    let message: string | undefined;
    try {
      const view = engine.tasks.get(caller, taskId);
      message = view.statusMessage ?? undefined;
      progress = (await engine.call(caller, 'tasks_status', { graphId: taskId })).graph.progress;
      if (isTerminalTask(view.status)) stop();
    } catch {
      stop(); // the task went away (or out of sight): nothing more to report
      return;
    }
    if (progress.done <= last) return;
    last = progress.done;
    await server
      .notification({ method: 'notifications/progress', params: { progressToken, progress: progress.done, total: progress.total, ...(message ? { message } : {}) } })
      .catch(() => undefined);
  };
  const unsubscribe = engine.tasks.onChange((changed) => {
    if (changed === taskId) send();
  });
  const mine = followers.get(server) ?? new Set<() => void>();
  followers.set(server, mine);
  const stop = () => {
    unsubscribe();
    mine.delete(stop);
  };
  mine.add(stop);
  if (mine.size === 1) {
    const previous = server.onclose;
    server.onclose = () => {
      for (const end of [...mine]) end();
      previous?.();
    };
  }
  send(); // where it stands now (stages may have ended before this was set up)
}
