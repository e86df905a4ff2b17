import type { MethodInput } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import { refuseAnswersThatDoNotFit, unusableSchema } from '../../common/answer-check';
import type { EvidenceFile, EvidenceSummary, HandoffResult, HandoffView, InputAnswer, InputRequest, LineComment } from '../../common/handoff-dto';
import { planHandoff, type HandoffAction, type HandoffState } from '../../common/handoff-machine';
import type { EngineContext } from '../room/index';
import type { HandoffChange, HandoffRecord } from '../store/handoffs';
import type { TaskChange, TaskRecord } from '../store/tasks';
import type { NewWorkspace, WorkspaceChange } from '../store/workspaces';
import { TASK_ERROR_CODES } from '../../common/task-record';
import { isTerminalTask } from '../../common/task-machine';
import type { TaskService } from '../tasks/index';
import { HANDOFF_OPERATION } from '../tasks/index';
import { HandoffQueries } from './queries';
import { WorkspaceService } from '../workspaces/index';
import { mayAccept, mayAddress, mayDecide, mustBeAssignee, mustBeOwnerOrApprover } from './handoff-roles';

const EVENT_KIND: Record<HandoffAction, string> = {
  accept: 'handoff.accepted',
  request_input: 'handoff.input_requested',
  answer_input: 'handoff.input_answered',
  complete: 'handoff.completed',
  approve: 'handoff.approved',
  reject: 'handoff.rejected',
  cancel: 'handoff.cancelled',
  expire: 'handoff.expired',
};

/** What one action writes, decided inside the transaction from the rows as they are there. */
interface Effect {
  handoff: HandoffChange;
  /** Omitted: the task row is not touched at all (approval never rewrites the task). */
  task?: TaskChange;
  data?: Record<string, unknown>;
}

const DEFAULT_INPUT_SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };

/**
 * Every change to a handoff and its task. Each runs in one ctx.commit: the rows are re-read inside the
 * transaction, the pure machine decides the next state, the role rule decides who may, and the rows and the
 * event are written together, or nothing is.
 */
export class HandoffActions {
  readonly q: HandoffQueries;

  /** `workspaces`: the engine's one service of handoffs' worktrees (a test's actions make their own). */
  constructor(
    private readonly ctx: EngineContext,
    private readonly tasks: TaskService,
    readonly workspaces: WorkspaceService = new WorkspaceService(ctx),
  ) {
    this.q = new HandoffQueries(ctx.room.db, ctx.room.tasks, workspaces.repo);
  }

  /** `workspace`: the row to insert with a new handoff (planned, or a rejected one's worktree continued). */
  create(caller: Caller, input: MethodInput<'handoff_create'>, workspace?: (handoffId: string) => NewWorkspace): { handoff: HandoffView; created: boolean } {
    const { handoffs, tasks } = this.q;
    const key = input.idempotency_key ?? input.idempotencyKey ?? null;
    const to = input.to ?? null;
    // one transaction for the lookup and the insert: the key, the addressee and the cap are judged on what is
    // committed, and a repeat finds the original instead of tripping the unique index
    const { id, created } = this.ctx.commit(() => {
      const original = key === null ? null : handoffs.byIdempotencyKey(caller.name, key);
      if (original) return { value: { id: original.id, created: false }, events: [] };
      if (to !== null) mayAddress(caller, to, this.ctx.room.participants.byName(to));
      const active = tasks.countActive();
      if (active >= this.ctx.limits.maxActiveTasks) {
        throw new RoomError(
          'LIMIT_EXCEEDED',
          `the room already has ${active} tasks working or waiting for input (at most ${this.ctx.limits.maxActiveTasks}): finish or cancel one first`,
        );
      }
      if (caller.role === 'agent') {
        const mine = tasks.countActiveOwnedBy(caller.name);
        if (mine >= this.ctx.limits.maxActiveTasksPerAgent) {
          throw new RoomError(
            'LIMIT_EXCEEDED',
            `you (${caller.name}) have ${mine} tasks working or waiting for input, your share of the room's ${this.ctx.limits.maxActiveTasks} (at most ${this.ctx.limits.maxActiveTasksPerAgent} per agent): finish or cancel one first`,
          );
        }
      }
      const handoffId = this.ctx.ids.handoffId();
      const taskId = this.ctx.ids.handoffTaskId();
      const at = this.ctx.now();
      // the handoff.created event is the task's creation event too: one write, one event
      this.tasks.create(
        { id: taskId, operation: HANDOFF_OPERATION, owner: caller.name, ttlMs: this.ctx.limits.handoffTaskTtlMs, pollIntervalMs: this.ctx.limits.handoffPollIntervalMs, correlationId: handoffId, at },
        // its summary (the first 200 characters): Activity names the handoff by it, not by its id
        { kind: 'handoff.created', actor: caller.name, subject: handoffId, data: { taskId, to, status: 'open', taskStatus: 'working', summary: input.summary.slice(0, 200) } },
      );
      handoffs.insert({
        id: handoffId,
        taskId,
        owner: caller.name,
        target: to,
        summary: input.summary,
        constraints: input.constraints ?? null,
        artifacts: input.artifacts ?? [],
        idempotencyKey: key,
        at,
      });
      if (workspace) this.q.workspaces.insert(workspace(handoffId));
      return { value: { id: handoffId, created: true }, events: [] };
    });
    return { handoff: this.q.get(caller, id), created };
  }

  /** Who may accept it, judged before a workspace is made for the accept (the accept judges again). */
  checkAccept(caller: Caller, id: string): HandoffRecord {
    return this.judge(caller, id, 'accept', (h) => mayAccept(caller, h));
  }

  /** `worktree`: the workspace folder made for this accept (recorded with it, in the same transaction). */
  accept(caller: Caller, id: string, worktree?: string): HandoffView {
    return this.act(caller, id, 'accept', (h) => {
      mayAccept(caller, h);
      if (worktree) this.q.workspaces.update(h.id, { path: worktree, state: 'ready' }, this.ctx.now());
      return { handoff: { assignee: caller.name }, task: { assignee: caller.name }, data: { assignee: caller.name, ...(worktree ? { worktree } : {}) } };
    });
  }

  requestInput(caller: Caller, input: MethodInput<'handoff_request_input'>): HandoffView {
    return this.act(caller, input.handoffId, 'request_input', (h) => {
      mustBeAssignee(caller, h, 'request input');
      const requests: Record<string, InputRequest> = {};
      for (const [key, r] of Object.entries(input.requests)) {
        // own keys only: a key such as "constructor" must not match Object.prototype
        if (Object.hasOwn(h.inputAnswers, key)) {
          throw new RoomError('INVALID_INPUT', `input "${key}" was already answered on this handoff: use a new key`);
        }
        const problem = r.requestedSchema ? unusableSchema(r.requestedSchema) : null;
        if (problem) throw new RoomError('INVALID_INPUT', `input "${key}": its requestedSchema cannot check answers (${problem}); send a JSON Schema of an object`);
        requests[key] = {
          method: 'elicitation/create',
          params: { mode: 'form', message: r.message, requestedSchema: r.requestedSchema ?? DEFAULT_INPUT_SCHEMA },
        };
      }
      return { handoff: {}, task: { inputRequests: requests }, data: { keys: Object.keys(requests) } };
    });
  }

  answerInput(caller: Caller, input: MethodInput<'handoff_answer_input'>): HandoffView {
    const keys = Object.keys(input.answers);
    return this.act(
      caller,
      input.handoffId,
      'answer_input',
      (h, task) => {
        mustBeOwnerOrApprover(caller, h, 'answers its input');
        const outstanding = { ...((task?.inputRequests ?? {}) as Record<string, InputRequest>) };
        const unknown = keys.filter((k) => !Object.hasOwn(outstanding, k));
        if (unknown.length > 0) {
          throw new RoomError(
            'INVALID_INPUT',
            `no outstanding input request ${unknown.map((k) => `"${k}"`).join(', ')}; outstanding: ${Object.keys(outstanding).join(', ') || 'none'}`,
          );
        }
        refuseAnswersThatDoNotFit(outstanding, input.answers);
        const at = this.ctx.now();
        const answers: Record<string, InputAnswer> = { ...h.inputAnswers };
        for (const key of keys) {
          const a = input.answers[key];
          if (!a) continue;
          answers[key] = { action: a.action, ...(a.content ? { content: a.content } : {}), answeredBy: caller.name, answeredAt: at };
          delete outstanding[key];
        }
        const remaining = Object.keys(outstanding).length;
        return {
          handoff: { inputAnswers: answers },
          task: { inputRequests: remaining > 0 ? outstanding : null },
          data: { keys, remaining: Object.keys(outstanding) },
        };
      },
      // the machine needs to know whether this answer leaves anything outstanding
      (_h, task) => ({ remainingInputs: Object.keys(task?.inputRequests ?? {}).filter((k) => !keys.includes(k)).length }),
    );
  }

  /** Only the assignee completes: judged before its workspace's change is captured (the complete judges again). */
  checkComplete(caller: Caller, id: string): HandoffRecord {
    return this.judge(caller, id, 'complete', (h) => mustBeAssignee(caller, h, 'complete it'));
  }

  /** `captured`: the workspace's change, stored with the result in the same transaction. */
  complete(caller: Caller, input: MethodInput<'handoff_complete'>, captured?: { summary: EvidenceSummary; files: EvidenceFile[] }): HandoffView {
    return this.act(caller, input.handoffId, 'complete', (h) => {
      mustBeAssignee(caller, h, 'complete it');
      const result: HandoffResult = { text: input.result, artifacts: input.artifacts ?? [], completedBy: caller.name, completedAt: this.ctx.now() };
      let change: Record<string, unknown> = {};
      if (captured) {
        this.q.workspaces.update(h.id, { evidence: captured.summary }, this.ctx.now());
        this.q.workspaces.setFiles(h.id, captured.files);
        change = { files: captured.summary.files, additions: captured.summary.additions, deletions: captured.summary.deletions, commits: captured.summary.commitCount, uncommitted: captured.summary.uncommittedCount };
      }
      // the same result on both rows: the task's goes with its TTL, the handoff's copy stays
      return { handoff: { result }, task: { result, inputRequests: null }, data: { bytes: Buffer.byteLength(input.result), artifacts: result.artifacts.length, ...change } };
    });
  }

  /** Who may decide, and that there is a result to decide on: judged before a merge (the decision judges again). */
  checkDecide(caller: Caller, id: string, approved: boolean): HandoffRecord {
    return this.judge(caller, id, approved ? 'approve' : 'reject', () => mayDecide(caller, approved));
  }

  /** `workspace`: what the decision did to the handoff's workspace (a merge), recorded in the same transaction. */
  /** `said`: a rejection's line comments and the commit it was made on (the next completion is reviewed against it). */
  decide(caller: Caller, id: string, approved: boolean, reason: string | null, workspace?: WorkspaceChange, said: { comments?: LineComment[]; reviewedHead?: string } = {}): HandoffView {
    return this.act(caller, id, approved ? 'approve' : 'reject', (h) => {
      mayDecide(caller, approved);
      if (workspace) this.q.workspaces.update(h.id, workspace, this.ctx.now());
      const merged = workspace?.merge ? { merged: workspace.merge.commit, into: workspace.merge.into } : {};
      const comments = said.comments?.length ? { comments: said.comments.length } : {};
      return { handoff: { decision: { approved, by: caller.name, at: this.ctx.now(), reason, ...said } }, data: { reason, ...merged, ...comments } };
    });
  }

  cancel(caller: Caller, id: string, reason: string | null): HandoffView {
    return this.act(caller, id, 'cancel', (h) => {
      mustBeOwnerOrApprover(caller, h, 'cancels it');
      return {
        handoff: { cancellation: { by: caller.name, at: this.ctx.now(), reason } },
        task: { statusMessage: reason ?? `cancelled by ${caller.name}`, inputRequests: null },
        data: { reason },
      };
    });
  }

  /**
   * The sweeper's move: the task failed with "task expired" (and a JSON-RPC error a tasks/result can return:
   * -32001, the request-timeout code MCP SDKs use), an unfinished handoff cancelled.
   */
  expire(taskId: string): void {
    const h = this.q.handoffs.byTask(taskId);
    if (!h) return;
    this.act(null, h.id, 'expire', () => ({
      handoff: { cancellation: { by: null, at: this.ctx.now(), reason: 'task expired' } },
      task: { statusMessage: 'task expired', error: { code: TASK_ERROR_CODES.expired, message: 'task expired' }, inputRequests: null },
      data: { reason: 'task expired' },
    }));
  }

  /** The sweeper's other move: a task row gone one TTL after it ended; the handoff keeps its result. */
  deleteTask(task: TaskRecord): void {
    const h = this.q.handoffs.byTask(task.id);
    this.ctx.commit(() => {
      const current = this.q.tasks.get(task.id);
      if (!current || current.updatedAt !== task.updatedAt) return { value: undefined, events: [] };
      this.tasks.remove(task.id, { kind: 'handoff.task_deleted', actor: null, subject: h?.id ?? task.id, data: { taskId: task.id, taskStatus: task.status } });
      return { value: undefined, events: [] };
    });
  }

  /**
   * The checks of a transition without writing anything, in the order `act` makes them (visible, machine, role):
   * for a step that does slow work outside the transaction first (git), which `act` then judges again.
   */
  private judge(caller: Caller, id: string, action: HandoffAction, role: (h: HandoffRecord) => void): HandoffRecord {
    const h = this.q.visibleRecord(caller, id);
    const task = this.q.tasks.get(h.taskId);
    planHandoff(action, { handoff: h.status, task: task?.status ?? null });
    role(h);
    return h;
  }

  /**
   * One transition: visible? → machine (names the current state) → role rule → write both rows and the event.
   * `caller` null is the runner itself (the TTL sweeper).
   */
  private act(
    caller: Caller | null,
    id: string,
    action: HandoffAction,
    effect: (h: HandoffRecord, task: TaskRecord | null) => Effect,
    options?: (h: HandoffRecord, task: TaskRecord | null) => { remainingInputs: number },
  ): HandoffView {
    const { handoffs, tasks } = this.q;
    this.ctx.commit(() => {
      const h = caller ? this.q.visibleRecord(caller, id) : handoffs.get(id);
      if (!h) throw new RoomError('NOT_FOUND', `unknown handoff "${id}"`);
      const task = tasks.get(h.taskId);
      const before: HandoffState = { handoff: h.status, task: task?.status ?? null };
      const after = planHandoff(action, before, options?.(h, task));
      const change = effect(h, task);
      const at = this.ctx.now();
      handoffs.update(h.id, { ...change.handoff, status: after.handoff }, at);
      const event = {
        kind: EVENT_KIND[action],
        actor: caller?.name ?? null,
        subject: h.id,
        data: { taskId: h.taskId, status: after.handoff, taskStatus: after.task, ...change.data },
      };
      // an ended task is never written again (cancelling a handoff whose task already ended leaves the task be)
      const writesTask = change.task !== undefined && task !== null && !(isTerminalTask(task.status) && after.task === task.status);
      if (!writesTask || !task) return { value: undefined, events: [event] };
      // the handoff's event is the task write's one event; the task machine judges the move again (on the row
      // read above, in this same transaction: not read a second time)
      this.tasks.updateRead(task, { ...change.task, status: after.task ?? undefined }, event);
      return { value: undefined, events: [] };
    });
    const h = this.q.handoffs.get(id);
    if (!h) throw new RoomError('INTERNAL', 'handoff vanished after a change');
    return this.q.view(h);
  }
}
