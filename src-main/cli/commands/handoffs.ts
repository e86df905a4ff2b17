import type { EventView, HandoffView, TaskView } from '../../common/handoff-dto';
import { describeEvent, namesFromEvents } from '../../common/event-text';
import { stringFlag, UsageError, type ParsedArgs } from '../args';
import { formFields } from '../answer-form';
import { oneLine, print, type CeCommand } from '../command';
import { callAsOperator, readAs } from '../room-client';
import { createHandoffCommand, evidenceFiles, mergePreview, workspaceLines } from './review';

/** One positional id after the command word, nothing more. */
function idArg(args: ParsedArgs, usage: string): string {
  const [, id, ...extra] = args.positional;
  if (!id) throw new UsageError(`${usage}: the id is missing`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  return id;
}

/** A named participant, for commands that act or read with that participant's rights. */
function participantFlag(args: ParsedArgs, usage: string): string {
  const name = stringFlag(args, 'participant');
  // a task id alone is not authorization: the command must say whose view (or whose rights) it uses
  if (!name) throw new UsageError(`${usage}: say which participant with --participant NAME (a task id alone is not authorization)`);
  return name;
}

/** Every handoff a paged read answers, page after page from the first: the list is complete however long. */
export async function everyHandoff(read: (cursor: string | null) => Promise<{ handoffs: HandoffView[]; nextCursor: string | null }>): Promise<HandoffView[]> {
  const handoffs: HandoffView[] = [];
  let cursor: string | null = null;
  do {
    const page = await read(cursor);
    handoffs.push(...page.handoffs);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return handoffs;
}

function handoffLine(h: HandoffView): string {
  const who = `${h.owner} → ${h.assignee ?? h.to ?? 'anyone'}`;
  return `${h.id.padEnd(20)} ${h.status.padEnd(12)} ${(h.task?.status ?? '-').padEnd(14)} ${who.padEnd(28)} ${oneLine(h.summary, 60)}`;
}

function taskLines(t: TaskView): string[] {
  const lines = [
    `task:        ${t.taskId} (${t.operation})`,
    `status:      ${t.status}${t.statusMessage ? ` — ${t.statusMessage}` : ''}`,
    `owner:       ${t.owner}${t.assignee ? `   assignee: ${t.assignee}` : ''}`,
    `created:     ${t.createdAt}   updated: ${t.lastUpdatedAt}`,
    `ttl:         ${t.ttl === null ? 'none' : `${t.ttl} ms`}   poll: ${t.pollInterval} ms   correlation: ${t.correlationId}`,
  ];
  for (const [key, r] of Object.entries(t.inputRequests ?? {})) {
    lines.push(`input asked: ${key}: ${r.params.message}`);
    const fields = formFields(r.params.requestedSchema).map((f) => `${f.name} (${f.choices ? f.choices.join('|') : f.type}${f.required ? ', required' : ''})`);
    if (fields.length > 0) lines.push(`             fields: ${fields.join(', ')}`);
  }
  if (t.error) lines.push(`error:       ${t.error.code} ${t.error.message}`);
  return lines;
}

function handoffLines(h: HandoffView): string[] {
  const lines = [
    `handoff:     ${h.id}`,
    `status:      ${h.status}`,
    `from → to:   ${h.owner} → ${h.to ?? 'anyone'}${h.assignee ? `   assignee: ${h.assignee}` : ''}`,
    `summary:     ${h.summary}`,
  ];
  if (h.constraints) lines.push(`constraints: ${h.constraints}`);
  for (const a of h.artifacts) lines.push(`artifact:    ${a.uri}${a.name ? ` (${a.name})` : ''}`);
  for (const [key, a] of Object.entries(h.inputAnswers)) lines.push(`input:       ${key}: ${a.action} by ${a.answeredBy}${a.content ? ` ${JSON.stringify(a.content)}` : ''}`);
  if (h.result) {
    lines.push(`result:      by ${h.result.completedBy} at ${h.result.completedAt}`);
    lines.push(...h.result.text.split('\n').map((l) => `  ${l}`));
  }
  if (h.decision) lines.push(`decision:    ${h.decision.approved ? 'approved' : 'rejected'} by ${h.decision.by}${h.decision.reason ? `: ${h.decision.reason}` : ''}`);
  if (h.cancellation) lines.push(`cancelled:   by ${h.cancellation.by ?? 'the runner'}${h.cancellation.reason ? `: ${h.cancellation.reason}` : ''}`);
  lines.push(...(h.task ? taskLines(h.task) : [`task:        ${h.taskId} (deleted after its TTL; the result above remains)`]));
  const asked = Object.keys(h.task?.inputRequests ?? {});
  if (asked.length > 0) lines.push(`answer with: ce answer ${h.id}${asked.length > 1 ? ' [KEY]' : ''}   (prompts in a terminal; or --set FIELD=VALUE, --decline)`);
  return lines;
}

/** One event as its id, time, kind and the sentence a person reads (--json keeps the fields). */
const eventLine = (e: EventView, names: Map<string, string>) => `${String(e.id).padStart(6)}  ${e.at}  ${e.kind.padEnd(24)} ${describeEvent(e, (id) => names.get(id))}`;

export const HANDOFF_COMMANDS: CeCommand[] = [
  {
    name: 'handoffs',
    synopsis: ['ce handoffs'],
    summary: 'list the handoffs, newest first: id, status, task status, who, summary',
    details: ['Through the room process when one runs, else from the room file read-only (nothing is written).'],
    examples: ['ce handoffs', 'ce handoffs --json > handoffs.json'],
    async run(args, room) {
      if (args.positional.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(args.positional[1])}`);
      const handoffs = await everyHandoff((cursor) => readAs(room, 'handoff_list', { limit: 200, ...(cursor ? { cursor } : {}) }));
      print(args, { handoffs }, () => (handoffs.length === 0 ? 'no handoffs' : handoffs.map(handoffLine).join('\n')));
      return 0;
    },
  },
  {
    name: 'handoff',
    synopsis: ['ce handoff ID', 'ce handoff create --summary TEXT [--to NAME] [--repo DIR [--base REF] [--host ALIAS --host-repo PATH]] [--constraints TEXT]'],
    summary: 'one handoff: its result, its workspace (branch, worktree, the reviewed commit, files, test runs), its task and the input it asks for; or hand work to an agent (create)',
    options: {
      summary: { type: 'string', value: 'TEXT', help: 'create: what the work is (the agent reads it first)' },
      to: { type: 'string', value: 'NAME', help: 'create: the participant who should take it (default: anyone who can accept it)' },
      repo: { type: 'string', value: 'DIR', help: 'create: a git repository: the work gets a worktree of its own there when accepted' },
      base: { type: 'string', value: 'REF', help: 'create: the branch, tag or commit the work starts from (default: the branch checked out in DIR)' },
      host: { type: 'string', value: 'ALIAS', help: "create: make the worktree on this host of the room (docs/hosts.md); the work is fetched into DIR for review and merged there" },
      'host-repo': { type: 'string', value: 'PATH', help: "create, with --host: the absolute path of the repository's clone on that host" },
      constraints: { type: 'string', value: 'TEXT', help: 'create: what the work must respect' },
    },
    details: ['"ce diff ID" prints the change itself; "ce approve ID --merge" merges exactly the commit shown under reviewed.'],
    examples: ['ce handoff h_0123', 'ce handoff h_0123 --json', 'ce handoff create --to claude --summary "fix the flaky login test" --repo ~/src/app', 'ce handoff create --to builder --summary "train the small model" --repo ~/src/app --host gpu-box --host-repo /srv/me/app'],
    async run(args, room) {
      if (args.positional[1] === 'create') return createHandoffCommand(args, room);
      const id = idArg(args, 'ce handoff ID');
      const { handoff } = await readAs(room, 'handoff_get', { handoffId: id });
      const w = handoff.workspace;
      const files = w?.evidence ? await evidenceFiles(room, id, false) : [];
      const preview = w ? await mergePreview(room, id) : null;
      print(args, { handoff, ...(w?.evidence ? { files } : {}), ...(preview ? { preview } : {}) }, () =>
        [...handoffLines(handoff), ...(w ? workspaceLines(id, w, files.slice(0, 50), preview) : [])].join('\n'),
      );
      return 0;
    },
  },
  {
    name: 'handoff-events',
    synopsis: ['ce handoff-events ID'],
    summary: "a handoff's events, oldest first",
    examples: ['ce handoff-events h_0123'],
    async run(args, room) {
      const id = idArg(args, 'ce handoff-events ID');
      const events: EventView[] = [];
      let next = await readAs(room, 'handoff_events', { handoffId: id, limit: 200 });
      events.push(...next.events);
      while (next.more) {
        next = await readAs(room, 'handoff_events', { handoffId: id, cursor: next.nextCursor, limit: 200 });
        events.push(...next.events);
      }
      const page = { ...next, events };
      const names = namesFromEvents(events);
      print(args, page, () => (page.events.length === 0 ? 'no events kept for this handoff' : page.events.map((e) => eventLine(e, names)).join('\n')));
      return 0;
    },
  },
  {
    name: 'task',
    synopsis: ['ce task ID --participant NAME'],
    summary: 'a task, as NAME may see it (NAME\'s read rights apply)',
    options: {
  participant: { type: 'string', value: 'NAME', help: "whose rights to use (a task id alone is not authorization)" },
    },
    examples: ['ce task t_0123 --participant claude'],
    async run(args, room) {
      const usage = 'ce task ID --participant NAME';
      const id = idArg(args, usage);
      const name = participantFlag(args, usage);
      // read with NAME's rights: its capabilities (read) and its view of tasks apply, not the operator's
      const { task } = await readAs(room, 'task_get', { taskId: id }, { participant: name });
      print(args, { task }, () => taskLines(task).join('\n'));
      return 0;
    },
  },
  {
    name: 'task-cancel',
    synopsis: ['ce task-cancel ID --participant NAME [--reason TEXT]'],
    summary: "cancel a task (a handoff's or a graph run) with NAME's rights",
    options: {
  participant: { type: 'string', value: 'NAME', help: "whose rights to use (a task id alone is not authorization)" },
      reason: { type: 'string', value: 'TEXT', help: 'why (kept with the cancellation)' },
    },
    examples: ['ce task-cancel t_0123 --participant claude --reason "not needed any more"'],
    async run(args, room) {
      const usage = 'ce task-cancel ID --participant NAME';
      const id = idArg(args, usage);
      const participant = participantFlag(args, usage);
      const reason = stringFlag(args, 'reason');
      const out = await callAsOperator(room, 'handoff_task_cancel_as', { taskId: id, participant, ...(reason ? { reason } : {}) });
      print(args, out, () => (out.handoff ? `cancelled task ${id} (handoff ${out.handoff.id} is ${out.handoff.status})` : `cancelled task ${id} (${out.task?.status ?? 'cancelled'})`));
      return 0;
    },
  },
  {
    name: 'approve',
    synopsis: ['ce approve ID [--merge] [--reason TEXT]'],
    summary: 'approve a handoff whose result is ready (as the operator); --merge also merges its workspace into the base branch',
    options: {
      reason: { type: 'string', value: 'TEXT', help: 'a note kept with the decision' },
      merge: { type: 'boolean', help: "merge the handoff's workspace branch into its base branch (a conflict changes nothing)" },
    },
    examples: ['ce approve h_0123', 'ce approve h_0123 --merge --reason "tests pass"'],
    async run(args, room) {
      const id = idArg(args, 'ce approve ID');
      const reason = stringFlag(args, 'reason');
      const merge = args.flags.merge === true;
      const out = await callAsOperator(room, 'handoff_approve', { handoffId: id, ...(reason ? { reason } : {}), ...(merge ? { merge: true } : {}) });
      print(args, out, () =>
        out.merged ? `approved ${id} and merged it into ${out.merged.into} (${out.merged.fastForward ? 'fast-forward' : 'merge commit'} ${out.merged.commit.slice(0, 12)})` : `approved ${id}`,
      );
      return 0;
    },
  },
  {
    name: 'reject',
    synopsis: ['ce reject ID --reason TEXT'],
    summary: 'reject a handoff whose result is ready, saying why',
    options: { reason: { type: 'string', value: 'TEXT', help: 'why: the assignee reads it (required)' } },
    examples: ['ce reject h_0123 --reason "the migration is missing"'],
    async run(args, room) {
      const id = idArg(args, 'ce reject ID --reason TEXT');
      const reason = stringFlag(args, 'reason');
      if (!reason) throw new UsageError('ce reject ID --reason TEXT: say why with --reason, so the assignee can act on it');
      const out = await callAsOperator(room, 'handoff_reject', { handoffId: id, reason });
      print(args, out, () => `rejected ${id}: ${reason}`);
      return 0;
    },
  },
];
