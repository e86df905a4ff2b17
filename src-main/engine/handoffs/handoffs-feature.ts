import { isDiskFullError, RoomError } from '../../common/errors';
import { CONTRACT, type MethodInput } from '../../common/contract';
import { describeInvalidInput } from '../../common/validation';
import type { HandoffResult } from '../../common/handoff-dto';
import type { EngineContext, Feature } from '../room/index';
import type { TaskService } from '../tasks/index';
import { HandoffActions } from './handoff-actions';
import type { WorkspaceService } from '../workspaces/index';
import { workspaceSteps, type CloseShellsIn } from './workspace-steps';
import { reviewSteps, type TypeToAgent } from './review-steps';
import { recoverIntents } from './workspace-recovery';
import { HANDOFF_OPERATION } from '../tasks/index';
import { unknownTask } from './queries';
import { sweepHandoffTasks } from './sweeper';
import { toCaller } from '../store/participants';
import { waitOnFeed } from '../core/event-bus';
import type { Caller } from '../../common/dto';
import type { HandoffView } from '../../common/handoff-dto';
import { HANDOFF_STATUSES, type HandoffStatus } from '../../common/handoff-machine';

type HandoffWait = 'change' | 'ended' | HandoffStatus;
const ENDED: readonly HandoffStatus[] = ['approved', 'rejected', 'cancelled'];

/**
 * Whether a wait on a handoff is over (`changed`: an event of it or its task was just committed): any change; its end; or the status asked for, or a
 * status from which it can no longer be reached (statuses only move forward, and an end is final).
 */
function waitIsOver(until: HandoffWait, now: HandoffView, changed: boolean): boolean {
  if (until === 'change') return changed;
  if (ENDED.includes(now.status)) return true;
  if (until === 'ended') return false;
  return HANDOFF_STATUSES.indexOf(now.status) >= HANDOFF_STATUSES.indexOf(until);
}

type HandoffMethods =
  | 'handoff_create'
  | 'handoff_accept'
  | 'handoff_request_input'
  | 'handoff_answer_input'
  | 'handoff_complete'
  | 'handoff_get'
  | 'handoff_list'
  | 'handoff_history'
  | 'handoff_events'
  | 'handoff_approve'
  | 'handoff_evidence'
  | 'handoff_recapture'
  | 'handoff_reject'
  | 'handoff_preview'
  | 'handoff_since_review'
  | 'handoff_file'
  | 'handoff_cancel'
  | 'handoff_task_cancel_as';

/** Handoffs: durable work between participants, its task, approval, events, and the TTL sweeper. */
export function handoffsFeature(ctx: EngineContext, tasks: TaskService, service: WorkspaceService, closeShellsIn?: CloseShellsIn, typeToAgent?: TypeToAgent): Feature<HandoffMethods> {
  const actions = new HandoffActions(ctx, tasks, service);
  const { q } = actions;
  const workspaces = workspaceSteps(ctx, actions, closeShellsIn, service);
  const review = reviewSteps(ctx, actions, workspaces, typeToAgent);
  let timer: ReturnType<typeof setInterval> | undefined;

  // the task layer (tasks/get, tasks/cancel, tasks/update, tasks/result) reaches handoffs through these
  const handoffOf = (taskId: string) => {
    const h = q.handoffs.byTask(taskId);
    if (!h) throw unknownTask(taskId);
    return h;
  };
  tasks.register(HANDOFF_OPERATION, {
    cancel: (caller, task) => void actions.cancel(caller, handoffOf(task.id).id, null),
    answerInput: (caller, task, responses) => {
      // only keys the task is waiting on; stale or unknown keys are ignored, as tasks/update requires
      const waiting = task.inputRequests ?? {};
      const answers = Object.fromEntries(Object.entries(responses).filter(([key]) => Object.hasOwn(waiting, key)));
      if (Object.keys(answers).length === 0) return;
      // the same bounds as handoff_answer_input: an answer through tasks/update is no bigger or looser
      const parsed = CONTRACT.handoff_answer_input.input().safeParse({ handoffId: handoffOf(task.id).id, answers });
      if (!parsed.success) throw describeInvalidInput('tasks/update', parsed.error);
      actions.answerInput(caller, parsed.data as MethodInput<'handoff_answer_input'>);
    },
    visibleTo: (caller, task) => q.canSee(caller, task),
    resultOf: (task) => {
      const result = task.result as HandoffResult | null;
      return { content: [{ type: 'text', text: result?.text ?? '' }], structuredContent: { result } };
    },
  });

  /**
   * Answers with the handoff once a committed event of it or its task makes `until` true, when the caller gave up
   * (its request aborted or its connection closed), or at `waitMs`: the change feed ends the wait, never a timer
   * that re-reads. A handoff that became invisible to the caller (its task deleted) ends the wait too.
   */
  async function waitForHandoff(caller: Caller, first: HandoffView, until: HandoffWait, waitMs: number, signal: AbortSignal | undefined): Promise<HandoffView> {
    let latest = first;
    await waitOnFeed(ctx.bus, waitMs, signal, (event) => {
      const data = event.data as { taskId?: unknown } | null;
      if (event.subject !== first.id && event.subject !== first.taskId && data?.taskId !== first.taskId) return false;
      try {
        latest = q.get(caller, first.id);
      } catch {
        return true;
      }
      return waitIsOver(until, latest, true);
    });
    return latest;
  }

  return {
    name: 'handoffs',
    handlers: {
      handoff_create: (caller, input) => workspaces.create(caller, input),
      handoff_accept: (caller, input) => workspaces.accept(caller, input.handoffId),
      handoff_request_input: (caller, input) => ({ handoff: actions.requestInput(caller, input) }),
      handoff_answer_input: (caller, input) => ({ handoff: actions.answerInput(caller, input) }),
      handoff_complete: (caller, input) => workspaces.complete(caller, input),
      handoff_get: async (caller, input, call) => {
        if (input.until !== undefined && input.waitMs === undefined) {
          throw new RoomError('INVALID_INPUT', `until says what waitMs waits for: give waitMs too (at most ${ctx.limits.maxStatusWaitMs} ms)`);
        }
        const first = q.get(caller, input.handoffId); // refuses an unknown handoff before waiting
        if (!input.waitMs) return { handoff: first };
        const until = input.until ?? 'change';
        if (waitIsOver(until, first, false)) return { handoff: first, waitedMs: 0 };
        const started = ctx.elapsedMs();
        const handoff = await waitForHandoff(caller, first, until, input.waitMs, call.signal);
        return { handoff, waitedMs: Math.round(ctx.elapsedMs() - started) };
      },
      handoff_list: (caller, input) => q.list(caller, input),
      handoff_history: (caller, input) => q.ended(caller, input),
      handoff_events: (caller, input) => q.events(caller, input.handoffId, input),
      handoff_approve: (caller, input) => workspaces.approve(caller, input),
      handoff_evidence: (caller, input) => workspaces.evidence(caller, input),
      handoff_recapture: (caller, input) => workspaces.recapture(caller, input),
      handoff_reject: (caller, input) => review.reject(caller, input),
      handoff_preview: (caller, input) => review.preview(caller, input),
      handoff_since_review: (caller, input) => review.sinceReview(caller, input),
      handoff_file: (caller, input) => review.file(caller, input),
      handoff_cancel: (caller, input) => workspaces.cancel(caller, input),
      handoff_task_cancel_as: async (_operator, input) => {
        // the operator speaks for a named participant (ce task-cancel): that participant's rights apply, not the operator's
        const record = ctx.room.participants.byName(input.participant);
        if (!record || record.revokedAt !== null) {
          throw new RoomError('NOT_FOUND', `no active participant named "${input.participant}": see "ce participant list"`);
        }
        const as = toCaller(record);
        // the same view that participant would have: a task it may not see is an unknown task
        const task = q.task(as, input.taskId);
        if (!as.capabilities.includes('write')) throw new RoomError('FORBIDDEN', `${as.name} lacks the "write" capability needed to cancel`);
        if (task.operation !== HANDOFF_OPERATION) {
          // a graph run (or any other task): cancelled as MCP tasks/cancel would, with that participant's rights
          await tasks.cancel(as, task.taskId);
          return { handoff: null, task: q.task(as, task.taskId) };
        }
        const h = q.handoffs.byTask(task.taskId);
        if (!h) throw unknownTask(input.taskId);
        const handoff = actions.cancel(as, h.id, input.reason ?? null);
        return { handoff, task: handoff.task };
      },
    },
    async start(startup) {
      // steps on people's repositories a crash cut short: finished or undone before anything else runs
      await recoverIntents(ctx, actions, workspaces, startup.tagged);
      workspaces.service.reconcile();
      sweepHandoffTasks(ctx, tasks, service);
      timer = setInterval(() => {
        try {
          sweepHandoffTasks(ctx, tasks, service);
          // worktrees of handoffs cancelled by tasks/cancel or their TTL: removed when nothing in them is lost
          workspaces.tidyCancelled().catch((error: unknown) => console.error('[handoffs] tidying workspaces failed:', error));
        } catch (error) {
          // a full disk is the runner's health (one line while it lasts), not a stack per sweep
          if (isDiskFullError(error)) ctx.health.failed('store', error);
          else console.error('[handoffs] TTL sweep failed:', error);
        }
      }, ctx.limits.handoffSweepIntervalMs);
      // the sweeper must never keep a process (a one-shot ce command) alive
      timer.unref();
    },
    close() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
