import type http from 'node:http';
import { CLIENT_CAPABILITIES_META_KEY, PROTOCOL_VERSION_META_KEY, SERVER_INFO_META_KEY, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import type { Caller } from '../../common/dto';
import { isTerminalTask } from '../../common/task-machine';
import type { DoorEngine } from '../../engine/index';
import { sendRpcError } from '../../net/http-json';
import { mayReadMarkdown, parseResourceUri, readLog, watchResource } from '../surface/resources';
import { toDetailedTaskV2 } from '../tasks/task-wire';
import type { TaskRecord } from '../../common/task-record';
import { TASKS_EXTENSION } from '../tasks/tasks-extension';
import { SERVER_INFO } from '../surface/tools';
import { RPC } from '../transport/rpc-errors';

/** A subscriber whose unsent backlog passes this is dropped (the others are not held up). */
export const LISTEN_LAG_LIMIT_BYTES = 256 * 1024;
const MAX_TASK_IDS = 256;
const MAX_RESOURCE_SUBSCRIPTIONS = 64;
const KEEPALIVE_MS = 15_000;

/** Live listen streams and lagging ones dropped, in this process (for diagnostics and tests). */
export const listenStats = { active: 0, dropped: 0 };

/** Listen streams open at once, per participant and in all. */
export const MAX_LISTENS_PER_PARTICIPANT = 64;
export const MAX_LISTENS = 512;

/** The open streams by participant, so revoking one ends its streams at once. */
const openStreams = new Map<string, Set<() => void>>();

/** The open streams by participant and listen request id, so notifications/cancelled for that id ends it. */
const byRequestId = new Map<string, Map<string, Set<() => void>>>();
const idKey = (id: string | number) => JSON.stringify(id);

export function endListensOf(participant: string): void {
  for (const end of [...(openStreams.get(participant) ?? [])]) end();
}

/**
 * notifications/cancelled naming a listen request's id ends that participant's stream for it (seed 001: "sending
 * notifications/cancelled for that request id ends the subscription"), without the final result: a cancelled
 * request is never answered. Says whether a stream was ended.
 */
export function cancelListen(participant: string, requestId: string | number): boolean {
  const ends = byRequestId.get(participant)?.get(idKey(requestId));
  if (!ends || ends.size === 0) return false;
  for (const end of [...ends]) end();
  return true;
}

interface ListenBody {
  id?: string | number;
  params?: { _meta?: Record<string, unknown>; notifications?: { taskIds?: unknown; resourceSubscriptions?: unknown } };
}

/**
 * subscriptions/listen (2026-07-28), served here for every listen request because the SDK's own router
 * drops `taskIds`. The acknowledgement comes first, with only what will be sent (the tool, prompt and
 * resource catalogs never change, so their list_changed kinds are omitted); then notifications/tasks (the
 * DetailedTask, for task ids tasks/get would answer for this caller) and notifications/resources/updated, each
 * stamped with the subscription id. Nothing is replayed. A subscriber that stops reading is dropped.
 */
export function handleListen(engine: DoorEngine, caller: Caller, req: http.IncomingMessage, res: http.ServerResponse, body: ListenBody): void {
  const id = body.id ?? null;
  const meta = body.params?._meta ?? {};
  const version = meta[PROTOCOL_VERSION_META_KEY];
  if (req.headers['mcp-protocol-version'] !== version || req.headers['mcp-method'] !== 'subscriptions/listen') {
    return sendRpcError(res, 400, RPC.headerMismatch, 'the MCP-Protocol-Version or Mcp-Method header disagrees with the request body', {}, id);
  }
  const filter = body.params?.notifications ?? {};
  const wantsTasks = filter.taskIds !== undefined;
  const caps = meta[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  const ext = caps?.extensions?.[TASKS_EXTENSION];
  if (wantsTasks && (ext === null || typeof ext !== 'object')) {
    res.writeHead(400, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        error: { code: RPC.missingRequiredClientCapability, message: 'Missing required client capability', data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } },
      }),
    );
    return;
  }
  const asked = (v: unknown, max: number) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(0, max) : []);
  const taskIds = asked(filter.taskIds, MAX_TASK_IDS).filter((t) => {
    try {
      engine.tasks.get(caller, t);
      return true;
    } catch {
      return false;
    }
  });
  const uris = asked(filter.resourceSubscriptions, MAX_RESOURCE_SUBSCRIPTIONS).filter((uri) => {
    const parsed = parseResourceUri(engine, uri);
    if (!parsed) return false;
    if (parsed.kind === 'markdown') return mayReadMarkdown(caller);
    try {
      readLog(engine, caller, { ...parsed, limit: 1 });
      return true;
    } catch {
      return false;
    }
  });

  const mine = openStreams.get(caller.name) ?? new Set<() => void>();
  if (mine.size >= MAX_LISTENS_PER_PARTICIPANT || listenStats.active >= MAX_LISTENS) {
    return sendRpcError(res, 503, RPC.transportRefused, `too many open subscriptions/listen streams: close some first (at most ${MAX_LISTENS_PER_PARTICIPANT} per participant)`, { 'Retry-After': '10' }, id);
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive' });
  let closed = false;
  const stops: (() => void)[] = [];
  listenStats.active++;
  const endNow = () => {
    cleanup();
    res.destroy();
  };
  mine.add(endNow);
  openStreams.set(caller.name, mine);
  const cancelled = () => {
    cleanup();
    res.end();
  };
  const sameId = id === null ? null : (byRequestId.get(caller.name) ?? new Map<string, Set<() => void>>());
  if (sameId && id !== null) {
    sameId.set(idKey(id), (sameId.get(idKey(id)) ?? new Set()).add(cancelled));
    byRequestId.set(caller.name, sameId);
  }
  const leave = engine.presence.connected(caller.name);
  const cleanup = () => {
    if (closed) return;
    closed = true;
    leave();
    listenStats.active--;
    mine.delete(endNow);
    if (mine.size === 0) openStreams.delete(caller.name);
    if (sameId && id !== null) {
      const set = sameId.get(idKey(id));
      set?.delete(cancelled);
      if (set?.size === 0) sameId.delete(idKey(id));
      if (sameId.size === 0) byRequestId.delete(caller.name);
    }
    for (const stop of stops) stop();
    clearInterval(keepalive);
  };
  const write = (message: object) => {
    if (closed) return;
    // lagging means the backlog was already over the limit before this message: one big notification (a
    // completed task's result) is not lag
    const lagging = res.writableLength > LISTEN_LAG_LIMIT_BYTES;
    if (!lagging) res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    if (lagging) {
      // a lagged subscriber is dropped, never buffered without bound; it can listen again and re-read state
      listenStats.dropped++;
      cleanup();
      res.destroy();
    }
  };
  // the subscription id joins what the frame's own _meta says (a task's task-log URI, its handoff)
  const stamp = (params: Record<string, unknown>) => ({ ...params, _meta: { ...(params._meta as Record<string, unknown> | undefined), [SUBSCRIPTION_ID_META_KEY]: id } });
  const finish = () => {
    if (closed) return;
    write({ jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID_META_KEY]: id, [SERVER_INFO_META_KEY]: SERVER_INFO } } });
    cleanup();
    res.end();
  };
  const keepalive = setInterval(() => !closed && res.write(': keepalive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  req.on('close', cleanup);
  res.on('close', cleanup);

  const acknowledged: Record<string, unknown> = {};
  if (taskIds.length > 0) acknowledged.taskIds = taskIds;
  if (uris.length > 0) acknowledged.resourceSubscriptions = uris;
  write({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: stamp({ notifications: acknowledged }) });
  if (taskIds.length === 0 && uris.length === 0) return finish();
  // tasks that had already ended when the stream opened will say nothing more
  if (uris.length === 0 && taskIds.every((t) => isTerminalTask(engine.tasks.find(caller, t)?.status ?? 'completed'))) return finish();

  const watched = new Set(taskIds);
  const allEnded = (changed: TaskRecord) => taskIds.every((t) => {
    const task = t === changed.id ? changed : engine.tasks.find(caller, t);
    return !task || isTerminalTask(task.status);
  });
  if (taskIds.length > 0) {
    stops.push(
      engine.tasks.onChange((taskId, eventId) => {
        if (!watched.has(taskId) || closed) return;
        const change = readChange(engine, caller, taskId, eventId);
        if (!change) return; // deleted after its TTL: nothing more to say about it
        write({ jsonrpc: '2.0', method: 'notifications/tasks', params: stamp(change.view) });
        if (uris.length === 0 && allEnded(change.task)) finish();
      }),
    );
  }
  for (const uri of uris) {
    stops.push(watchResource(engine, caller, uri, () => write({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: stamp({ uri }) })));
  }
}

/**
 * One committed task change as every listen stream sends it. The bus calls each stream's listener in one
 * synchronous dispatch, so the row and its wire view are read once per event (keyed by the event's id: a change
 * committed while a dispatch runs is read afresh), and whether a participant may see the task is decided once
 * per participant (its streams share the answer); 100 streams on one task re-read and re-built it 100 times
 * before, and then still checked visibility 100 times.
 */
let lastChange: {
  engine: DoorEngine;
  eventId: number;
  taskId: string;
  task: TaskRecord;
  view: Record<string, unknown>;
  /** Who may see it, by participant and capabilities. */
  seen: Map<string, boolean>;
} | null = null;

const viewerKey = (caller: Caller) => `${caller.name}\n${caller.capabilities.join(',')}`;

function readChange(engine: DoorEngine, caller: Caller, taskId: string, eventId: number): { task: TaskRecord; view: Record<string, unknown> } | null {
  const last = lastChange;
  if (last && last.engine === engine && last.eventId === eventId && last.taskId === taskId) {
    const key = viewerKey(caller);
    let visible = last.seen.get(key);
    if (visible === undefined) {
      visible = engine.tasks.canSee(caller, last.task);
      last.seen.set(key, visible);
    }
    return visible ? last : null;
  }
  const task = engine.tasks.find(caller, taskId);
  if (!task) return null; // unknown to this participant, or deleted: the next stream reads for itself
  lastChange = { engine, eventId, taskId, task, view: toDetailedTaskV2(task, (t) => engine.tasks.resultOf(t)), seen: new Map([[viewerKey(caller), true]]) };
  return lastChange;
}
