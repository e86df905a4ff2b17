import { z } from 'zod';
import type { MethodName, MethodOutputs } from './contract';

/**
 * What agents are told about each method besides its input: MCP tool annotations (hints a client may use to
 * decide what needs the person's confirmation) and the shape of its answer (the tool's outputSchema, which
 * SDK clients check structuredContent against). The top level of every answer is exact; nested views are
 * open objects whose fields the method descriptions and the DTO types document.
 */
export interface ToolHints {
  /** Changes nothing. */
  readOnly: boolean;
  /** May end or overwrite something (processes, work in progress) rather than only add. */
  destructive: boolean;
  /** Calling again with the same arguments has no further effect. */
  idempotent: boolean;
  /** Reaches beyond the room: runs the person's commands, which may touch anything the person can. */
  openWorld: boolean;
}

const READ: ToolHints = { readOnly: true, destructive: false, idempotent: true, openWorld: false };
const ADD: ToolHints = { readOnly: false, destructive: false, idempotent: false, openWorld: false };
const RUN: ToolHints = { readOnly: false, destructive: true, idempotent: false, openWorld: true };

interface Surface {
  hints: ToolHints;
  output: z.ZodObject;
}

/**
 * Every method's surface, built on first use (the first tools/list), not when the room process starts: ~45 zod
 * schemas that only a tool listing reads. The compile-time check below keeps it in step with the contract.
 */
function buildToolSurface() {
  const view = (what: string) => z.looseObject({}).describe(what);
  const views = (what: string) => z.array(z.looseObject({})).describe(what);
  const nextCursor = z.string().nullable().describe('pass as cursor for the next page; null: this was the last page');
  const feedCursor = z.string().describe('pass as cursor to read on (the feed grows: call again later for more)');
  const more = z.boolean().describe('more is already there past nextCursor');
  const eventPage = {
    events: views('events, oldest first: {id, at, kind, actor, subject, data}'),
    nextCursor: feedCursor,
    more,
    oldestRetainedId: z.number().nullable().describe('the oldest event id the room still keeps (older ones were dropped)'),
  };
  const graphRun = {
    graphId: z.string().describe('the graph id (gr_…)'),
    taskId: z.string().describe('its task id (the same as graphId)'),
    state: z.string().describe('the graph state'),
    stages: views('each stage: {id, state}'),
  };
  // below the top level a null is left out of an answer (mcp/surface/answers.ts): an exit names what it has
  const exit = z.object({ exitCode: z.number().nullable().optional(), signal: z.string().nullable().optional() });
  return {
    room_info: {
      hints: READ,
      output: z.object({
        room: view('{markdownPath, databasePath, id, createdAt}'),
        schemaVersion: z.number(),
        runnerVersion: z.string(),
        counts: view('{participants, events}'),
        health: view("the runner's health: {state: ok} or {state: degraded, problems: [{area, code, message, since, tries}]}"),
        sandbox: view("the OS sandbox agents' shells and stages run in: {kind: bubblewrap | sandbox-exec | none, message}"),
      }),
    },
    participant_list: { hints: READ, output: z.object({ participants: views('each participant') }) },
    participant_activity: { hints: READ, output: z.object({ participants: views('each participant: {name, connections, streams, sessions, lastCall, lastSeenAt, disconnectedAt}') }) },
    participant_add: { hints: ADD, output: z.object({ participant: view('the participant'), token: z.string().describe('its bearer token, shown once') }) },
    participant_session_close: { hints: { ...ADD, destructive: true }, output: z.object({ closed: z.boolean() }) },
    participant_rotate: { hints: { ...ADD, destructive: true }, output: z.object({ participant: view('the participant'), token: z.string().describe('its new bearer token, shown once') }) },
    participant_revoke: {
      hints: { ...ADD, destructive: true, idempotent: true },
      output: z.object({ participant: view('the participant'), changed: z.boolean() }),
    },
    participant_folders: {
      hints: { ...ADD, idempotent: true },
      output: z.object({ participant: view('the participant'), folders: z.array(z.string()).describe('its extra writable folders after the call'), changed: z.boolean() }),
    },
    shell_open: { hints: { ...RUN, destructive: false }, output: z.object({ shell: view('the shell: {id, name, owner, cwd, pid, alive, cols, rows, …}') }) },
    shell_io: {
      hints: RUN,
      output: z.object({
        shellId: z.string(),
        output: z.string().describe('the output read, from cursor to nextCursor'),
        cursor: z.string().describe('where output begins'),
        nextCursor: feedCursor,
        more,
        truncated: z.boolean().describe('output before cursor had already left the scrollback'),
        alive: z.boolean(),
        exit: exit.nullable(),
        status: view('what the program in it is doing: {state: working | waiting | idle | exited, since, reason?, title?}'),
        wait: view('how the wait ended: {reason, pattern?, match?, effectiveTimeoutMs}').nullable(),
        screen: view('format "screen" only: {cols, rows, cursor: {row, col}, alternateScreen, applicationCursorKeys}').optional(),
      }),
    },
    shell_run: {
      hints: RUN,
      output: z.object({
        shellId: z.string(),
        status: z.enum(['finished', 'running', 'shellExited', 'cancelled']).describe('finished: exitCode is the command\'s; running: left running at the timeout'),
        exitCode: z.number().nullable(),
        output: z.string().describe("the command's output without the echoed command line (its newest maxBytes)"),
        cursor: z.string().describe("where the command's output starts (shell_io reads it all from here)"),
        nextCursor: z.string().describe('where the returned output ends'),
        omittedBytes: z.number().describe('output before `output` that was left out'),
        integration: z.enum(['marks', 'sentinel']).describe('how the end and exit code were found'),
        effectiveTimeoutMs: z.number(),
        hint: z.string().optional().describe('what to do next when the command did not finish'),
      }),
    },
    shell_close: {
      hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
      output: z.object({ shellId: z.string(), exit, alreadyExited: z.boolean() }),
    },
    shell_list: { hints: READ, output: z.object({ shells: views('each shell you can see') }) },
    handoff_create: { hints: ADD, output: z.object({ handoff: view('the handoff and its task'), created: z.boolean().describe('false: an earlier call with this idempotency key') }) },
    handoff_accept: { hints: ADD, output: z.object({ handoff: view('the handoff') }) },
    handoff_request_input: { hints: ADD, output: z.object({ handoff: view('the handoff') }) },
    handoff_answer_input: { hints: ADD, output: z.object({ handoff: view('the handoff') }) },
    handoff_complete: { hints: ADD, output: z.object({ handoff: view('the handoff') }) },
    handoff_get: { hints: READ, output: z.object({ handoff: view('the handoff and its task'), waitedMs: z.number().optional().describe('with waitMs: how long the call waited') }) },
    handoff_list: { hints: READ, output: z.object({ handoffs: views('handoffs, newest first'), nextCursor }) },
    handoff_history: { hints: READ, output: z.object({ handoffs: views('ended handoffs, the most recently ended first'), nextCursor }) },
    handoff_events: { hints: READ, output: z.object(eventPage) },
    handoff_approve: {
      hints: ADD,
      output: z.object({ handoff: view('the handoff'), merged: view('with merge: the base branch, the commit it is at now, and whether that was a fast-forward').optional() }),
    },
    handoff_evidence: {
      hints: READ,
      output: z.object({
        evidence: view("the change's summary: commits, counts, uncommitted files, runs with failed stages (null: not completed yet, or no workspace)").nullable(),
        files: views('files of the diff, in order: {path, oldPath, status, additions, deletions, binary, patch, cut}'),
        nextCursor,
      }),
    },
    handoff_recapture: { hints: ADD, output: z.object({ handoff: view('the handoff, its workspace.evidence captured anew') }) },
    handoff_reject: {
      hints: ADD,
      output: z.object({
        handoff: view('the handoff'),
        followUp: view('with again: the follow-up handoff, in the same worktree').optional(),
        typedInto: z.number().optional().describe("how many of the assignee's terminals the comments were typed into"),
      }),
    },
    handoff_since_review: {
      hints: READ,
      output: z.object({ from: z.string().nullable().describe('the commit reviewed last time'), to: z.string().nullable().describe('the commit to review now'), files: views('the files changed between them') }),
    },
    handoff_file: { hints: READ, output: z.object({ content: z.string().nullable().describe('the text (null: not there, binary or too large)'), why: z.string().optional().describe('why there is no text') }) },
    handoff_preview: { hints: READ, output: z.object({ preview: view('what a merge into the base would do now (null: no workspace or no work yet)').nullable() }) },
    handoff_cancel: { hints: { ...ADD, destructive: true }, output: z.object({ handoff: view('the handoff') }) },
    handoff_task_cancel_as: {
      hints: { ...ADD, destructive: true },
      output: z.object({ handoff: view('the handoff (null: the task was a graph run)').nullable(), task: view('the task').nullable() }),
    },
    task_get: { hints: READ, output: z.object({ task: view('the task') }) },
    task_cancel: { hints: { ...ADD, destructive: true }, output: z.object({ task: view('the task, cancelled') }) },
    task_answer: { hints: ADD, output: z.object({}) },
    workspace_history: { hints: READ, output: z.object(eventPage) },
    tasks_run: { hints: RUN, output: z.object(graphRun) },
    tasks_rerun: { hints: RUN, output: z.object(graphRun) },
    tasks_status: {
      hints: READ,
      output: z.object({
        graph: view('the graph: {graphId, state, progress {done, total, byState}, timings, …}'),
        stages: views('without stageId: each stage').optional(),
        stage: view('with stageId: the stage').optional(),
        log: view("with stageId: a slice of the stage's log: {records, nextCursor, more, size, spooled}").optional(),
        waitedMs: z.number().optional().describe('with waitMs: how long the call waited'),
      }),
    },
    tasks_list: { hints: READ, output: z.object({ graphs: views('graphs, newest first'), nextCursor }) },
    tasks_cancel: {
      hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
      output: z.object({
        graphId: z.string(),
        changed: views('stages that changed: {id, from, to}'),
        unchanged: views('stages left as they were: {id, state}'),
        message: z.string(),
        graph: view('the graph'),
      }),
    },
    tasks_graph: { hints: READ, output: z.object({ graph: view('the graph'), stages: views('each stage with its dependencies'), order: z.array(z.string()) }) },
    audit_list: { hints: READ, output: z.object({ entries: views('audited calls, newest first'), nextCursor }) },
    ui_link_create: { hints: ADD, output: z.object({ url: z.string().describe('the one-time sign-in link'), expiresAt: z.string().nullable().describe('when an unused link stops working (null: when the room process stops)') }) },
    ui_session_list: { hints: READ, output: z.object({ sessions: views('browser UI sessions'), served: z.boolean() }) },
    ui_session_revoke: { hints: { ...ADD, destructive: true }, output: z.object({ revoked: z.boolean() }) },
    agent_clients: { hints: READ, output: z.object({ clients: views('each client: {id, label, program, path, version, install}') }) },
    agent_start: { hints: RUN, output: z.object({ agent: view('the agent: {shellId, client, participant, version, cwd, shell}') }) },
    agent_list: { hints: READ, output: z.object({ agents: views('each agent the room started'), earlier: views('earlier agents whose terminal is gone: {participant, client, cwd, again}') }) },
    agent_stop: { hints: { ...ADD, destructive: true }, output: z.object({ agent: view('the agent'), revoked: z.boolean() }) },
    agent_complete: { hints: ADD, output: z.object({ handoff: view('the handoff, completed for its agent') }) },
    agent_watch: { hints: { ...ADD, idempotent: true }, output: z.object({ agent: view('the agent, with its watch: {onStall, stallMs, onLimit, stalled, limited, limitedUntil}') }) },
    agent_watch_defaults: { hints: { ...ADD, idempotent: true }, output: z.object({ stallMs: z.number(), onStall: z.string(), onLimit: z.string() }) },
    agent_limit: { hints: ADD, output: z.object({ agent: view('the agent, with its watch') }) },
    host_list: { hints: READ, output: z.object({ hosts: views('each host: {alias, agents, addedAt, addedBy, configured, lastCheck}'), available: z.array(z.string()), sshConfig: z.string() }) },
    host_add: { hints: { ...ADD, idempotent: true }, output: z.object({ host: view('the host'), changed: z.boolean() }) },
    host_check: { hints: { ...READ, readOnly: false, openWorld: true }, output: z.object({ host: view('the host'), check: view('what the check found: {reachable, ready, error, os, arch, path, tools, missing}') }) },
    host_remove: { hints: { ...ADD, destructive: true, idempotent: true }, output: z.object({ removed: z.boolean() }) },
    // a schedule runs the person's commands later (its graph or agent), as whoever added it
    schedule_add: { hints: { ...ADD, openWorld: true }, output: z.object({ schedule: view('the schedule: {id, name, cron, timeZone, kind, runs, catchUp, owner, nextDueAt, lastRun}') }) },
    schedule_list: { hints: READ, output: z.object({ schedules: views('each schedule: {id, name, cron, timeZone, kind, runs, catchUp, owner, nextDueAt, lastRun}'), machineTimeZone: z.string().describe("the room machine's time zone (a schedule's default)") }) },
    schedule_remove: { hints: { ...ADD, destructive: true, idempotent: true }, output: z.object({ schedule: view('the schedule'), removed: z.boolean() }) },
    schedule_runs: { hints: READ, output: z.object({ schedule: view('the schedule'), runs: views('each due time, newest first: {dueAt, outcome (ran, skipped, missed, failed, starting), late, graphId, handoffId, shellId, reason}') }) },
    room_summary: {
      hints: READ,
      output: z.object({
        since: z.string(),
        until: z.string(),
        sections: views('only sections with content, in order (waiting, ended, ready, spend, schedules): {id, title, counts, items: [{at, text, kind, subject, tone, host, detail, open}], more}'),
        partial: z.boolean().describe('the room no longer keeps events from the start of the window: some may be missing'),
      }),
    },
    spend_record: { hints: ADD, output: z.object({ recorded: z.number().describe('data points that counted') }) },
    spend_report: {
      hints: READ,
      output: z.object({
        rows: views('per UTC day, participant, agent run and handoff: {day, participant, run, handoffId, client, inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costMicroUsd}'),
        totals: views('per participant: {participant, inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costMicroUsd}'),
        envelopes: views('each envelope: {id, scope, target, maxWallMs, maxIdleMs, maxTokens, maxCostMicroUsd, state, stopped}'),
      }),
    },
    envelope_set: { hints: { ...ADD, idempotent: true }, output: z.object({ envelope: view('the envelope') }) },
    envelope_clear: { hints: { ...ADD, idempotent: true }, output: z.object({ removed: z.boolean() }) },
  } satisfies Record<MethodName, Surface>;
}

let built: ReturnType<typeof buildToolSurface> | undefined;
export function toolSurface(): ReturnType<typeof buildToolSurface> {
  built ??= buildToolSurface();
  return built;
}
type ToolSurface = ReturnType<typeof buildToolSurface>;

// Compile-time guard: a surface for every method, and each answer's top-level keys exactly the method's.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type KeysOf<T> = T extends unknown ? keyof T : never;
type SurfaceKeys = { [M in MethodName]: Same<keyof z.infer<ToolSurface[M]['output']>, KeysOf<MethodOutputs[M]>> };
export const SURFACE_MATCHES_OUTPUTS: false extends SurfaceKeys[MethodName] ? never : true = true;
export const SURFACE_COVERS_METHODS: Same<keyof ToolSurface, MethodName> = true;
