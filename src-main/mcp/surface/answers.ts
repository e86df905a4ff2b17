import type { MethodName } from '../../common/contract';
import type { LineComment, MergePreview } from '../../common/handoff-dto';
import { describeEvent, namesFromEvents } from '../../common/event-text';
import type { EventView } from '../../common/handoff-dto';
import { commentLines, previewLines, wholePreview } from '../../common/merge-preview-text';
import type { RoomSummary } from '../../common/methods/summary';
import { summaryLines } from '../../common/summary-text';

/**
 * What a tool call answers, shaped for the model that pays for every byte of it.
 *
 * `structuredContent` is the authority (it matches the tool's outputSchema). Below its top level, fields that
 * say nothing are left out: null, empty lists and objects, zero counts in `byState`, the few flags whose
 * default is false, and ids that repeat their object's own (see `repeats`). The top-level keys stay, as the schema declares them (a `nextCursor: null` still says
 * "last page").
 *
 * The text block is not a second copy: it is a short summary a person or a model can act on (what happened,
 * the ids, what to call next), with the data itself where the data is the answer (a shell's output, a log
 * slice, a handoff's result, one line per listed item). Clients differ in which one they hand the model
 * (Claude Code and VS Code pass structuredContent, Gemini CLI and opencode the text), so each is complete on
 * its own.
 */

/** Keys whose false value is their default: left out below the top level. */
const FALSE_BY_DEFAULT = new Set(['ready', 'retrying', 'logsSpooled', 'spooled', 'truncated']);

/**
 * Fields that repeat what their object already says: a graph's taskId (its graphId), a stage's
 * (`<graphId>:<stage id>`), and in a handoff's task its ids, owner and assignee (the handoff's own).
 */
function repeats(k: string, v: unknown, row: Record<string, unknown>, parent: Record<string, unknown> | null): boolean {
  if (k === 'taskId' && typeof row.graphId === 'string') return v === row.graphId;
  if (k === 'taskId' && typeof v === 'string' && typeof row.id === 'string' && typeof row.state === 'string') return v.startsWith('gr_') && v.endsWith(`:${row.id}`);
  if (parent && typeof parent.taskId === 'string' && parent.task === row) {
    if (k === 'taskId') return v === parent.taskId;
    if (k === 'correlationId') return v === parent.id;
    if (k === 'owner' || k === 'assignee') return v === parent[k];
    if (k === 'schemaVersion') return true;
  }
  return false;
}

function compactValue(value: unknown, key: string, parent: Record<string, unknown> | null = null): unknown {
  if (Array.isArray(value)) return value.map((item) => compactValue(item, ''));
  if (value === null || typeof value !== 'object') return value;
  const row = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) {
    if (v === null || v === undefined) continue;
    if (repeats(k, v, row, parent)) continue;
    if (key === 'byState' && v === 0) continue;
    if (v === false && FALSE_BY_DEFAULT.has(k)) continue;
    const inner = compactValue(v, k, row);
    if (Array.isArray(inner) && inner.length === 0) continue;
    if (inner !== null && typeof inner === 'object' && !Array.isArray(inner) && Object.keys(inner).length === 0) continue;
    out[k] = inner;
  }
  return out;
}

/** The structured answer with its silent fields left out below the top level. */
export function compactAnswer(result: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(result)) out[k] = v !== null && typeof v === 'object' ? compactValue(v, k) : v;
  return out;
}

type Row = Record<string, unknown>;
const str = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));
const rowsOf = (v: unknown): Row[] => (Array.isArray(v) ? (v as Row[]) : []);
const obj = (v: unknown): Row => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Row) : {});
/** `key value` pairs that are set, joined: "exit 1, signal SIGTERM". */
const pairs = (row: Row, keys: string[]): string =>
  keys
    .filter((k) => row[k] !== null && row[k] !== undefined && row[k] !== '')
    .map((k) => `${k} ${str(row[k])}`)
    .join(', ');
const pageLine = (r: Row): string => (r.nextCursor === null ? 'last page' : `next page: cursor ${str(r.nextCursor)}`);

function shellLine(s: Row): string {
  const state = s.alive ? 'alive' : `exited${s.exitCode !== null && s.exitCode !== undefined ? ` ${str(s.exitCode)}` : ''}${s.signal ? ` ${str(s.signal)}` : ''}`;
  const st = obj(s.status);
  const doing = st.state && st.state !== 'exited' ? `, ${st.state === 'waiting' ? 'waiting for the person' : str(st.state)}${st.state === 'waiting' && st.reason ? ` (${str(st.reason)})` : ''}` : '';
  const agent = obj(s.agent);
  return `${str(s.id)} "${str(s.name)}" ${state}${doing}, owner ${str(s.owner)}${agent.client ? ` (${str(agent.label)})` : ''}, cwd ${str(s.cwd)}`;
}

function progressOf(g: Row): string {
  const p = obj(g.progress);
  const by = Object.entries(obj(p.byState))
    .filter(([, n]) => n !== 0)
    .map(([state, n]) => `${str(n)} ${state}`)
    .join(', ');
  return `${str(p.done)}/${str(p.total)} done${by ? ` (${by})` : ''}`;
}

function graphLine(g: Row): string {
  const err = obj(g.error);
  return `graph ${str(g.graphId)} "${str(g.name)}" ${str(g.state)}: ${progressOf(g)}${g.durationMs !== null && g.durationMs !== undefined ? `, ${str(g.durationMs)} ms` : ''}${err.message ? `; ${str(err.message)}` : ''}`;
}

function stageLine(s: Row): string {
  const attempt = typeof s.maxAttempts === 'number' && s.maxAttempts > 1 ? `attempt ${str(s.attempt)}/${str(s.maxAttempts)}` : '';
  const detail = [pairs(s, ['exitCode', 'signal', 'errorCode']), attempt, s.ready ? 'ready' : '', str(s.message)].filter(Boolean).join(', ');
  return `  ${str(s.id)}: ${s.retrying ? 'waiting to retry' : str(s.state)}${detail ? ` (${detail})` : ''}`;
}

/** Stages to name: all of a small graph; of a large one, those not completed (the rest are counted). */
function stageLines(stages: Row[]): string[] {
  if (stages.length <= 12) return stages.map(stageLine);
  const notable = stages.filter((s) => s.state !== 'completed');
  const shown = notable.slice(0, 40).map(stageLine);
  const rest = notable.length - shown.length;
  return [...shown, ...(rest > 0 ? [`  … ${rest} more not completed (tasks_status with stageId for one)`] : []), `  ${stages.length - notable.length} completed`];
}

/** One ended handoff on a line: how it ended, who ended it, when, and the reason or note. */
function endedLine(h: Row): string {
  const d = obj(h.decision);
  const c = obj(h.cancellation);
  const end = Object.keys(d).length > 0 ? { by: str(d.by), at: str(d.at), why: d.reason } : { by: str(c.by) || 'the room', at: str(c.at), why: c.reason };
  return `${str(h.id)} ${str(h.status)} by ${end.by} at ${end.at}${end.why ? ` (${str(end.why)})` : ''}: ${str(h.summary)}`;
}

function handoffText(h: Row): string {
  const task = obj(h.task);
  const lines = [
    `handoff ${str(h.id)} ${str(h.status)} (task ${str(h.taskId)} ${str(task.status)}): ${str(h.summary)}`,
    `  from ${str(h.owner)} to ${str(h.to) || 'anyone'}${h.assignee ? `, assignee ${str(h.assignee)}` : ''}`,
  ];
  if (h.constraints) lines.push(`  constraints: ${str(h.constraints)}`);
  const artifacts = rowsOf(h.artifacts);
  if (artifacts.length > 0) lines.push(`  artifacts: ${artifacts.map((a) => str(a.uri)).join(', ')}`);
  const requests = obj(task.inputRequests);
  for (const [key, r] of Object.entries(requests)) lines.push(`  waiting for input "${key}": ${str(obj(r).message)}`);
  for (const [key, a] of Object.entries(obj(h.inputAnswers))) lines.push(`  answer "${key}" (${str(obj(a).action)} by ${str(obj(a).answeredBy)}): ${str(obj(a).content)}`);
  const decision = obj(h.decision);
  if (Object.keys(decision).length > 0) lines.push(`  ${decision.approved ? 'approved' : 'rejected'} by ${str(decision.by)}${decision.reason ? `: ${str(decision.reason)}` : ''}`);
  for (const c of commentLines(rowsOf(decision.comments) as unknown as LineComment[])) lines.push(`    comment ${c}`);
  const cancellation = obj(h.cancellation);
  if (Object.keys(cancellation).length > 0) lines.push(`  cancelled by ${str(cancellation.by)}${cancellation.reason ? `: ${str(cancellation.reason)}` : ''}`);
  const workspace = obj(h.workspace);
  if (Object.keys(workspace).length > 0) {
    lines.push(`  workspace ${str(workspace.state)}: ${workspace.path ? str(workspace.path) : 'made when accepted'} (branch ${str(workspace.branch)} from ${str(workspace.base)} ${str(workspace.baseCommit).slice(0, 12)})`);
    const continues = obj(workspace.continues);
    if (continues.handoffId) lines.push(`  continues ${str(continues.handoffId)}${continues.reason ? `, rejected: ${str(continues.reason)}` : ''}`);
    for (const c of commentLines(rowsOf(continues.comments) as unknown as LineComment[])) lines.push(`    comment ${c}`);
    const evidence = obj(workspace.evidence);
    if (Object.keys(evidence).length > 0) {
      lines.push(`  change: ${str(evidence.commitCount)} commit(s), ${str(evidence.files)} file(s) +${str(evidence.additions)} -${str(evidence.deletions)}${evidence.uncommittedCount ? `, ${str(evidence.uncommittedCount)} uncommitted` : ''} (handoff_evidence for the diff)`);
      for (const run of rowsOf(evidence.runs)) lines.push(`  run ${str(run.graphId)} ${str(run.state)}${rowsOf(run.failed).length > 0 ? `: failed ${rowsOf(run.failed).map((f) => `${str(f.stageId)} (${str(f.log)})`).join(', ')}` : ''}`);
    }
    const merge = obj(workspace.merge);
    if (merge.commit) lines.push(`  merged into ${str(merge.into)} as ${str(merge.commit).slice(0, 12)}${merge.fastForward ? ' (fast-forward)' : ''}`);
    if (workspace.note) lines.push(`  ${str(workspace.note)}`);
  }
  const result = obj(h.result);
  if (typeof result.text === 'string') lines.push('  result:', result.text);
  return lines.join('\n');
}

/** An event's data as `key=value` words (a list joined by commas, anything deeper as JSON). */
const words = (data: Row): string =>
  Object.entries(data)
    .map(([k, v]) => `${k}=${Array.isArray(v) && v.every((x) => typeof x !== 'object') ? v.join(',') : str(v)}`)
    .join(' ');

/** Each event as its sentence (common/event-text.ts), then its kind, subject and data for the next call. */
function eventsText(r: Row): string {
  const rows = rowsOf(r.events);
  const names = namesFromEvents(rows.map((e) => ({ ...e, data: e.data ?? {} }) as unknown as EventView));
  const events = rows.map((e) => {
    const sentence = describeEvent({ ...e, actor: e.actor ?? null, subject: e.subject ?? null, data: e.data ?? {} } as unknown as EventView, (id) => names.get(id));
    return `#${str(e.id)} ${str(e.at)} ${sentence} [${str(e.kind)} ${str(e.subject)}${e.data ? ` ${words(obj(e.data))}` : ''}]`;
  });
  return [`${events.length} event(s) (#id at what happened [kind subject data])${r.more ? ', more already there' : ''}; read on with cursor ${str(r.nextCursor)}`, ...events].join('\n');
}

type Summary = (r: Row) => string;

const SUMMARIES: Partial<Record<MethodName, Summary>> = {
  room_info: (r) => {
    const room = obj(r.room);
    const health = obj(r.health);
    const problems = rowsOf(health.problems).map((p) => `  ${str(p.area)}: ${str(p.message)}`);
    return [
      `room ${str(room.markdownPath)} (commonroom ${str(r.runnerVersion)}, schema ${str(r.schemaVersion)}): ${str(obj(r.counts).participants)} participants, ${str(obj(r.counts).events)} events`,
      `health: ${str(health.state)}`,
      ...problems,
      `sandbox: ${str(obj(r.sandbox).message) || str(obj(r.sandbox).kind)}`,
    ].join('\n');
  },
  shell_open: (r) => `opened shell ${shellLine(obj(r.shell))}; run commands with shell_run or shell_io and shellId ${str(obj(r.shell).id)}`,
  shell_list: (r) => {
    const shells = rowsOf(r.shells);
    return shells.length === 0 ? 'no shells: shell_open starts one' : [`${shells.length} shell(s):`, ...shells.map((s) => `  ${shellLine(s)}`)].join('\n');
  },
  shell_close: (r) => `shell ${str(r.shellId)} ${r.alreadyExited ? 'had already exited' : 'closed'}${pairs(obj(r.exit), ['exitCode', 'signal']) ? ` (${pairs(obj(r.exit), ['exitCode', 'signal'])})` : ''}`,
  shell_io: (r) => {
    const exit = obj(r.exit);
    const wait = obj(r.wait);
    const head = [
      `shell ${str(r.shellId)} ${r.alive ? `alive, ${str(obj(r.status).state)}` : `exited${pairs(exit, ['exitCode', 'signal']) ? ` (${pairs(exit, ['exitCode', 'signal'])})` : ''}`}`,
      wait.reason ? `wait ended: ${str(wait.reason)}${wait.match ? ` on "${str(wait.match)}"` : ''}` : '',
      r.truncated ? 'output before cursor had left the scrollback' : '',
      `read on with cursor ${str(r.nextCursor)}${r.more ? ' (more already there)' : ''}`,
    ].filter(Boolean);
    return `${head.join('; ')}\n${str(r.output)}`;
  },
  shell_run: (r) => {
    const status = r.status === 'finished' ? `finished, exit ${str(r.exitCode)}` : str(r.status);
    const hint = r.hint ? `\n${str(r.hint)}` : '';
    const omitted = typeof r.omittedBytes === 'number' && r.omittedBytes > 0 ? `; ${r.omittedBytes} earlier bytes left out (shell_io from cursor ${str(r.cursor)} reads them)` : '';
    return `shell ${str(r.shellId)}: ${status}${omitted}; output ends at cursor ${str(r.nextCursor)}${hint}\n${str(r.output)}`;
  },
  tasks_run: (r) => `started graph ${str(r.graphId)} (${str(r.state)}, ${rowsOf(r.stages).length} stages); follow it with tasks_status {graphId, waitMs, until: "ended"}`,
  tasks_rerun: (r) => `re-ran as graph ${str(r.graphId)} (${str(r.state)}, ${rowsOf(r.stages).length} stages); follow it with tasks_status {graphId, waitMs, until: "ended"}`,
  tasks_status: (r) => {
    const lines = [graphLine(obj(r.graph))];
    if (r.stages !== undefined) lines.push(...stageLines(rowsOf(r.stages)));
    if (r.stage !== undefined) lines.push(stageLine(obj(r.stage)));
    if (r.log !== undefined) {
      const log = obj(r.log);
      lines.push(`log: read on with cursor ${str(log.nextCursor)}${log.more ? ' (more already there)' : ''}`);
      lines.push(rowsOf(log.records).map((rec) => str(rec.text)).join(''));
    }
    if (typeof r.waitedMs === 'number') lines.push(`waited ${r.waitedMs} ms`);
    return lines.join('\n');
  },
  tasks_list: (r) => {
    const graphs = rowsOf(r.graphs);
    return [`${graphs.length} graph(s), ${pageLine(r)}:`, ...graphs.map((g) => `  ${graphLine(g)}`)].join('\n');
  },
  tasks_cancel: (r) => [str(r.message), ...rowsOf(r.changed).map((c) => `  ${str(c.id)}: ${str(c.from)} → ${str(c.to)}`)].join('\n'),
  tasks_graph: (r) => [graphLine(obj(r.graph)), ...rowsOf(r.stages).map((s) => `  ${str(s.id)}${rowsOf(s.dependsOn).length > 0 ? ` ← ${(s.dependsOn as string[]).join(', ')}` : ''}`)].join('\n'),
  handoff_create: (r) => `${r.created ? 'created' : 'already created by this idempotency key'}: ${handoffText(obj(r.handoff))}\nwait for it with handoff_get {handoffId, waitMs, until}`,
  handoff_get: (r) => `${handoffText(obj(r.handoff))}${typeof r.waitedMs === 'number' ? `\nwaited ${r.waitedMs} ms` : ''}`,
  handoff_list: (r) => {
    const list = rowsOf(r.handoffs);
    return [`${list.length} handoff(s), ${pageLine(r)}:`, ...list.map((h) => `  ${str(h.id)} ${str(h.status)} from ${str(h.owner)} to ${str(h.to) || 'anyone'}: ${str(h.summary)}`)].join('\n');
  },
  handoff_history: (r) => {
    const list = rowsOf(r.handoffs);
    return [`${list.length} ended handoff(s), ${pageLine(r)}:`, ...list.map((h) => `  ${endedLine(h)}`)].join('\n');
  },
  handoff_events: eventsText,
  workspace_history: eventsText,
  room_summary: (r) => summaryLines(r as unknown as RoomSummary, (iso) => iso.slice(0, 19).replace('T', ' '), { ids: true }).join('\n'),
  handoff_preview: (r) => {
    const p = wholePreview(r.preview as Partial<MergePreview> | null | undefined); // compact answers leave out empty lists
    return p ? [`merge preview of ${str(p.head).slice(0, 12)} into ${str(p.into) || 'no branch'} (at ${str(p.baseTip).slice(0, 12)}):`, ...previewLines(p).map((l) => `  ${l}`)].join('\n') : 'no merge preview: the handoff has no live worktree with work in it';
  },
  handoff_evidence: (r) => {
    const files = rowsOf(r.files);
    const lines = [`${files.length} file(s)${r.nextCursor ? `, more with cursor ${str(r.nextCursor)}` : ''}:`];
    for (const f of files) {
      lines.push(`${str(f.status)} ${f.oldPath ? `${str(f.oldPath)} → ` : ''}${str(f.path)} ${f.binary ? '(binary)' : `+${str(f.additions)} -${str(f.deletions)}`}${f.cut ? ' (patch cut)' : ''}`);
      if (typeof f.patch === 'string') lines.push(f.patch);
    }
    return lines.join('\n');
  },
};
for (const m of ['handoff_accept', 'handoff_request_input', 'handoff_answer_input', 'handoff_complete', 'handoff_approve', 'handoff_recapture', 'handoff_reject', 'handoff_cancel'] as const) {
  SUMMARIES[m] = (r) => handoffText(obj(r.handoff));
}

/** The text block of a tool's answer: its summary, or (for a method without one) the compact object as JSON. */
export function answerText(method: MethodName, compact: Record<string, unknown>): string {
  const summary = SUMMARIES[method];
  return summary ? summary(compact) : JSON.stringify(compact);
}
