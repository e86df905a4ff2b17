import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import type { Caller } from '../../common/dto';
import { isRoomError } from '../../common/errors';
import type { DoorEngine } from '../../engine/index';

/**
 * Resources: the room's markdown file, task-log://{taskId} (every graph run and stage, every task) and
 * shell-log://{shellId}. Log reads return ordered records with a monotonic `seq`, from `?from=<seq>` on, at
 * most `?limit=` records (default 200), and the `nextSeq` to resume from: no gap, no duplicate.
 */
export const TASK_LOG_TEMPLATE = 'task-log://{taskId}';
export const SHELL_LOG_TEMPLATE = 'shell-log://{shellId}';
const MAX_MARKDOWN_BYTES = 1024 * 1024;
const DEFAULT_RECORDS = 200;
const MAX_RECORDS = 1000;

export type ParsedUri =
  | { kind: 'markdown' }
  | { kind: 'task-log' | 'shell-log'; id: string; from: number; limit: number };

export function markdownUri(engine: DoorEngine): string {
  return pathToFileURL(engine.room.location.markdownPath).toString();
}

/** Parses a resource URI by hand: a stage's task id holds ':' that a URL parser would take for a port. */
export function parseResourceUri(engine: DoorEngine, uri: string): ParsedUri | null {
  if (uri === markdownUri(engine)) return { kind: 'markdown' };
  const match = /^(task-log|shell-log):\/\/([^?#]+)(?:\?([^#]*))?$/.exec(uri);
  if (!match) return null;
  let id: string;
  try {
    id = decodeURIComponent(match[2] as string);
  } catch {
    return null;
  }
  const query = new URLSearchParams(match[3] ?? '');
  const from = Number(query.get('from') ?? '0');
  const limit = Number(query.get('limit') ?? String(DEFAULT_RECORDS));
  if (!Number.isSafeInteger(from) || from < 0 || !Number.isSafeInteger(limit) || limit < 1) return null;
  return { kind: match[1] as 'task-log' | 'shell-log', id, from, limit: Math.min(limit, MAX_RECORDS) };
}

export interface ResourcePage {
  records: { seq: number; [k: string]: unknown }[];
  nextSeq: number;
  more: boolean;
  truncated?: boolean;
}

/** Reads a log resource for a caller. Unknown and not-yours give the same error. */
export function readLog(engine: DoorEngine, caller: Caller, parsed: Extract<ParsedUri, { id: string }>): ResourcePage {
  try {
    return parsed.kind === 'task-log'
      ? engine.taskLogs.read(caller, parsed.id, parsed.from, parsed.limit)
      : engine.shells.readLog(caller, parsed.id, parsed.from, parsed.limit);
  } catch (error) {
    if (isRoomError(error) && error.code === 'NOT_FOUND') throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown resource: ${parsed.kind === 'task-log' ? 'unknown task' : 'unknown shell'}`);
    throw error;
  }
}

/**
 * The room file is read like everything else in the room: with `read`. The method table already asks it of
 * resources/*; this check keeps it so for any path that reaches the file (a listen stream's subscriptions).
 */
export function mayReadMarkdown(caller: Caller): boolean {
  return caller.capabilities.includes('read');
}

function readMarkdown(engine: DoorEngine, caller: Caller): string {
  if (!mayReadMarkdown(caller)) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `reading the room file needs the "read" capability, which ${caller.name} does not have`);
  const file = engine.room.location.markdownPath;
  const size = fs.statSync(file).size;
  if (size > MAX_MARKDOWN_BYTES) {
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `the room file is ${size} bytes, over the ${MAX_MARKDOWN_BYTES}-byte read limit: open it directly`);
  }
  return fs.readFileSync(file, 'utf8');
}

/**
 * Calls `onUpdate` when a resource changes; returns a stop function. Nothing here polls: a log is followed
 * through its own "grew" signal (a shell's output, a stage's log writer) or the committed events that make it
 * up, and the room file through the OS's change notification. Bursts are coalesced into one update per turn
 * of the event loop, so a chatty shell cannot flood a subscriber.
 */
export function watchResource(engine: DoorEngine, caller: Caller, uri: string, onUpdate: () => void): () => void {
  const parsed = parseResourceUri(engine, uri);
  if (!parsed) return () => undefined;
  let queued = false;
  let stopped = false;
  const changed = () => {
    if (queued || stopped) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      if (!stopped) onUpdate();
    });
  };
  let stop: () => void;
  try {
    if (parsed.kind === 'markdown') stop = watchFile(engine.room.location.markdownPath, changed);
    else if (parsed.kind === 'shell-log') stop = engine.shells.get(caller, parsed.id).onChange(changed);
    else stop = engine.taskLogs.watch(caller, parsed.id, changed);
  } catch {
    return () => undefined; // gone, or not the caller's: nothing will ever change for it
  }
  return () => {
    stopped = true;
    stop();
  };
}

/** The room file changed (its size or mtime), by the OS's notification on its folder: editors replace files. */
function watchFile(file: string, onChange: () => void): () => void {
  const version = () => {
    const st = fs.statSync(file, { throwIfNoEntry: false });
    return st ? `${st.size}:${st.mtimeMs}` : 'absent';
  };
  let last = version();
  let watcher: fs.FSWatcher;
  try {
    watcher = fs.watch(path.dirname(file), { persistent: false }, (_event, name) => {
      if (name !== null && name !== path.basename(file)) return;
      const now = version();
      if (now === last) return;
      last = now;
      onChange();
    });
  } catch {
    return () => undefined;
  }
  watcher.on('error', () => watcher.close());
  return () => watcher.close();
}

const MAX_SUBSCRIPTIONS_PER_SESSION = 64;

export function registerResourceHandlers(server: Server, engine: DoorEngine, caller: Caller, era: 'legacy' | 'modern'): void {
  server.setRequestHandler('resources/list', () => ({
    resources: [{ uri: markdownUri(engine), name: 'room', title: 'The room (markdown)', mimeType: 'text/markdown' }],
  }));
  server.setRequestHandler('resources/templates/list', () => ({
    resourceTemplates: [
      { uriTemplate: TASK_LOG_TEMPLATE, name: 'task-log', mimeType: 'application/json', description: 'A task’s log records (graph runs, stages, handoffs): ?from=<seq>&limit=<n>' },
      { uriTemplate: SHELL_LOG_TEMPLATE, name: 'shell-log', mimeType: 'application/json', description: 'A shell’s output lines: ?from=<seq>&limit=<n>' },
    ],
  }));
  server.setRequestHandler('resources/read', ({ params }) => {
    const parsed = parseResourceUri(engine, params.uri);
    if (!parsed) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown resource ${params.uri}: see resources/list and resources/templates/list`);
    if (parsed.kind === 'markdown') return { contents: [{ uri: params.uri, mimeType: 'text/markdown', text: readMarkdown(engine, caller) }] };
    const page = readLog(engine, caller, parsed);
    return { contents: [{ uri: params.uri, mimeType: 'application/json', text: JSON.stringify(page) }] };
  });

  if (era !== 'legacy') return;
  // 2025 clients subscribe per URI and get notifications/resources/updated on their session's GET stream
  const subscriptions = new Map<string, () => void>();
  const UriParams = z.object({ uri: z.string().max(2048) });
  server.setRequestHandler('resources/subscribe', ({ params }) => {
    const { uri } = UriParams.parse(params);
    const parsed = parseResourceUri(engine, uri);
    if (!parsed) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown resource ${uri}`);
    if (parsed.kind !== 'markdown') readLog(engine, caller, parsed); // refuses what the caller may not read
    else if (!mayReadMarkdown(caller)) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `subscribing to the room file needs the "read" capability, which ${caller.name} does not have`);
    if (!subscriptions.has(uri)) {
      if (subscriptions.size >= MAX_SUBSCRIPTIONS_PER_SESSION) {
        throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `at most ${MAX_SUBSCRIPTIONS_PER_SESSION} subscriptions per session: unsubscribe from some first`);
      }
      subscriptions.set(uri, watchResource(engine, caller, uri, () => void server.sendResourceUpdated({ uri }).catch(() => undefined)));
    }
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', ({ params }) => {
    const { uri } = UriParams.parse(params);
    subscriptions.get(uri)?.();
    subscriptions.delete(uri);
    return {};
  });
  const previous = server.onclose;
  server.onclose = () => {
    for (const stop of subscriptions.values()) stop();
    subscriptions.clear();
    previous?.();
  };
}
