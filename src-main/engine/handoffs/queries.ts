import type Database from 'better-sqlite3';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { EventPage, EventView, HandoffView, TaskView } from '../../common/handoff-dto';
import type { HandoffStatus } from '../../common/handoff-machine';
import { HandoffRepo, type EndedFilter, type HandoffRecord, type Viewer } from '../store/handoffs';
import type { TaskRepo, TaskRecord } from '../store/tasks';
import { workspaceView, type WorkspaceRepo } from '../store/workspaces';
import { canSeeTask } from '../tasks/index';
import { eventOf, type EventRow } from '../store/events';
import { handoffView } from './views';
import { taskView, unknownTask } from '../tasks/index';
import { HANDOFF_OPERATION } from '../tasks/index';
import { decodeCursor, encodeCursor, numberAt, stringAt } from '../core/paging';

const DEFAULT_PAGE = 50;

/** What a caller may see: everything with `approve`; otherwise its own part, plus open work it could take. */
export function viewerOf(caller: Caller): Viewer {
  return { me: caller.name, all: caller.capabilities.includes('approve'), canAccept: caller.capabilities.includes('write') };
}

/** Unknown and not visible are one answer, so ids cannot be probed. */
export function unknownHandoff(id: string): RoomError {
  return new RoomError('NOT_FOUND', `unknown handoff "${id}": check the id (handoff_list shows the handoffs you may see)`);
}

export { unknownTask };

const toEvent = (r: EventRow): EventView => eventOf(r);

/**
 * Every read of handoffs, tasks and events, over any connection: the engine's writer connection, or the CLI's
 * read-only one while a room process runs. One implementation, so both doors show exactly the same thing.
 */
export class HandoffQueries {
  readonly handoffs: HandoffRepo;
  readonly tasks: TaskRepo;
  readonly workspaces: WorkspaceRepo;

  /**
   * `tasks`: the room's own repo on the writer connection, so task writes reach the live change feed;
   * `workspaces`: the workspaces' own (WorkspaceService.repo: only its owner builds it).
   */
  constructor(
    private readonly db: Database.Database,
    tasks: TaskRepo,
    workspaces: WorkspaceRepo,
  ) {
    this.handoffs = new HandoffRepo(db);
    this.tasks = tasks;
    this.workspaces = workspaces;
  }

  view(h: HandoffRecord): HandoffView {
    const w = this.workspaces.get(h.id);
    return handoffView(h, this.tasks.get(h.taskId), w ? workspaceView(w) : null);
  }

  /** The record behind a visible handoff, or NOT_FOUND. */
  visibleRecord(caller: Caller, id: string): HandoffRecord {
    const h = this.handoffs.visible(id, viewerOf(caller));
    if (!h) throw unknownHandoff(id);
    return h;
  }

  get(caller: Caller, id: string): HandoffView {
    return this.view(this.visibleRecord(caller, id));
  }

  /** Newest first, a page at a time: the cursor holds the (created_at, id) of the last handoff of the previous page. */
  list(
    caller: Caller,
    options: { status?: HandoffStatus | undefined; limit?: number | undefined; cursor?: string | undefined },
  ): { handoffs: HandoffView[]; nextCursor: string | null } {
    const limit = options.limit ?? DEFAULT_PAGE;
    const restart = 'start from the newest handoff';
    const position = options.cursor === undefined ? null : decodeCursor(options.cursor, 'handoffs', options.status ?? '', restart);
    const before = position ? { createdAt: stringAt(position, 0, restart), id: stringAt(position, 1, restart) } : null;
    const rows = this.handoffs.listVisible(viewerOf(caller), { status: options.status, limit: limit + 1, before });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      handoffs: page.map((h) => this.view(h)),
      nextCursor: rows.length > limit && last ? encodeCursor('handoffs', options.status ?? '', [last.createdAt, last.id]) : null,
    };
  }

  /**
   * Ended handoffs, the most recently ended first, narrowed by the filter; the cursor holds the (ended at, id)
   * of the last one of the previous page and is bound to the filter, so it cannot read on under another one.
   */
  ended(caller: Caller, options: EndedFilter & { limit?: number | undefined; cursor?: string | undefined }): { handoffs: HandoffView[]; nextCursor: string | null } {
    const limit = options.limit ?? DEFAULT_PAGE;
    // stored times are UTC ISO strings: compare like with like
    const utc = (t: string | undefined) => (t === undefined ? undefined : new Date(t).toISOString());
    options = { ...options, since: utc(options.since), until: utc(options.until) };
    if (options.since !== undefined && options.until !== undefined && options.since >= options.until) {
      throw new RoomError('INVALID_INPUT', `since (${options.since}) must be before until (${options.until}): swap them, or leave one out`);
    }
    const restart = 'start from the most recently ended handoff';
    const scope = JSON.stringify([options.status ?? '', options.participant ?? '', options.since ?? '', options.until ?? '', options.text ?? '']);
    const position = options.cursor === undefined ? null : decodeCursor(options.cursor, 'handoffs', scope, restart);
    const before = position ? { at: stringAt(position, 0, restart), id: stringAt(position, 1, restart) } : null;
    const rows = this.handoffs.listEnded(viewerOf(caller), { ...options, limit: limit + 1, before });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      handoffs: page.map((h) => this.view(h)),
      nextCursor: rows.length > limit && last ? encodeCursor('handoffs', scope, [last.updatedAt, last.id]) : null,
    };
  }

  /** A task the caller may see: a handoff's task when the handoff is visible; another kind by the one task rule. */
  task(caller: Caller, taskId: string): TaskView {
    const task = this.tasks.get(taskId);
    if (!task) throw unknownTask(taskId);
    if (!this.canSee(caller, task)) throw unknownTask(taskId);
    return taskView(task);
  }

  /** A handoff's task is visible when its handoff is; another kind by the one task rule. */
  canSee(caller: Caller, task: TaskRecord): boolean {
    return task.operation === HANDOFF_OPERATION ? this.handoffs.taskVisible(task.id, viewerOf(caller)) : canSeeTask(caller, task);
  }

  events(caller: Caller, handoffId: string, page: { cursor?: string | undefined; limit?: number | undefined }): EventPage {
    this.visibleRecord(caller, handoffId);
    return this.page(
      'SELECT * FROM events WHERE subject = @subject AND id > @after ORDER BY id LIMIT @take',
      { subject: handoffId },
      page,
      'events',
      handoffId,
    );
  }

  /**
   * The room's events, each only for callers who may see what it is about: a handoff's for those who may see
   * the handoff, a graph's and a task's for their owner (and assignee), a shell's for its owner, participant changes and
   * shells for operators.
   * Operators and approvers see everything.
   */
  /** Events after the cursor's event id, oldest first. A cursor is bound to its feed (this handoff, or this caller's history). */
  private page(
    sql: string,
    params: Record<string, unknown>,
    page: { cursor?: string | undefined; limit?: number | undefined },
    kind: 'events' | 'history',
    scope: string,
  ): EventPage {
    const restart = 'start from the oldest event kept';
    const after = page.cursor === undefined ? 0 : numberAt(decodeCursor(page.cursor, kind, scope, restart), 0, restart);
    const limit = page.limit ?? DEFAULT_PAGE;
    const rows = this.db.prepare(sql).all({ ...params, after, take: limit + 1 }) as EventRow[];
    const events = rows.slice(0, limit).map(toEvent);
    const oldest = (this.db.prepare('SELECT min(id) AS id FROM events').get() as { id: number | null }).id;
    return { events, nextCursor: encodeCursor(kind, scope, [events.at(-1)?.id ?? after]), more: rows.length > limit, oldestRetainedId: oldest };
  }
}
