import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { LineComment, MergePreview } from '../../common/handoff-dto';
import { LIMITS } from '../../common/limits';
import type { EngineContext } from '../room/index';
import type { WorkspaceRecord } from '../store/workspaces';
import { commitOf, diffBetween, git, previewMerge, refsNow, type Neighbour } from '../workspaces/index';
import type { HandoffActions } from './handoff-actions';
import type { workspaceSteps } from './workspace-steps';

/**
 * Types `bytes` into the terminals the room started for `participant` (agent_start: the process there is the
 * agent's client, never a shell the agent opened over MCP, where a line would run as a command), about handoff
 * `handoffId`; how many.
 */
export type TypeToAgent = (participant: string, bytes: string, handoffId: string) => number;

const LIVE = new Set(['accepted', 'input_required', 'result_ready']);
const TERMINAL_LINE_CHARS = 1500;
/** The largest file the review reads whole (for the lines around its hunks). */
const FILE_BYTES = 1024 * 1024;

/**
 * One line of plain text an agent's prompt can take: no control character (no escape sequence, no newline that
 * would submit half of it, no bracketed-paste end), runs of spaces made one, cut to a length a prompt shows.
 */
export function plainLine(text: string, max = TERMINAL_LINE_CHARS): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** What the agent is told in its terminal when its work is sent back: the reason, the comments, where to go on. */
export function changesRequestedLine(by: string, handoffId: string, reason: string, comments: readonly LineComment[], followUp: string | null): string {
  const listed = comments.map((c) => `${c.path}:${c.line}${c.side === 'old' ? ' (old)' : ''} ${c.text}`).join('; ');
  const next = followUp
    ? `Go on in handoff ${followUp}, same worktree: handoff_accept it, fix, then handoff_complete it (handoff_get ${followUp} shows the comments).`
    : `handoff_get ${handoffId} shows the comments.`;
  return plainLine(`[Commonroom] ${by} requested changes on handoff ${handoffId}: ${reason}${listed ? ` Comments: ${listed}.` : ''} ${next}`);
}

/**
 * The review's steps: the merge preview (what approving would do now, worked out again only when a ref it
 * depends on moved), the change since the last review, and a rejection that carries line comments to the agent
 * (in its handoff, a follow-up in the same worktree, and its terminal).
 */
export function reviewSteps(ctx: EngineContext, actions: HandoffActions, steps: ReturnType<typeof workspaceSteps>, typeToAgent: TypeToAgent = () => 0) {
  const { q } = actions;
  const { service } = steps;
  const previews = new Map<string, { key: string; preview: MergePreview }>();

  /** The other live worktrees on `w`'s repository, each with its work's commit now. */
  function neighbours(w: WorkspaceRecord, refs: Map<string, string>): Neighbour[] {
    const out: Neighbour[] = [];
    for (const other of q.workspaces.withWorktree()) {
      if (other.handoffId === w.handoffId || other.repo !== w.repo || other.state !== 'ready') continue;
      const h = q.handoffs.get(other.handoffId);
      if (!h || !LIVE.has(h.status)) continue;
      const head = other.evidence?.head ?? refs.get(`refs/heads/${other.branch}`);
      if (!head) continue;
      out.push({ handoffId: h.id, summary: h.summary, status: h.status, head, ready: h.status === 'result_ready', createdAt: h.createdAt });
    }
    return out;
  }

  async function preview(caller: Caller, input: MethodInput<'handoff_preview'>): Promise<MethodOutputs['handoff_preview']> {
    const h = q.visibleRecord(caller, input.handoffId);
    const w = q.workspaces.get(h.id);
    if (!w || !LIVE.has(h.status) || w.state !== 'ready') {
      previews.delete(h.id); // its work ended: nothing to keep for it
      return { preview: null };
    }
    const refs = await refsNow(w.repo);
    const head = w.evidence?.head ?? refs.get(`refs/heads/${w.branch}`) ?? null;
    if (!head) return { preview: null };
    const near = neighbours(w, refs);
    const runs = service.runs(w.runs);
    const baseTip = w.baseBranch ? (refs.get(`refs/heads/${w.baseBranch}`) ?? null) : w.baseCommit;
    // what the answer depends on: while none of it moved, the last answer holds (no merge-tree is run again)
    const key = JSON.stringify([baseTip, head, h.status, near.map((n) => [n.handoffId, n.head, n.status]), runs.map((r) => [r.graphId, r.state, r.failed.length])]);
    const known = previews.get(h.id);
    if (known?.key === key) return { preview: known.preview };
    const made = await previewMerge(w, head, runs, near, ctx.now(), h.status === 'result_ready');
    previews.set(h.id, { key, preview: made });
    return { preview: made };
  }

  async function sinceReview(caller: Caller, input: MethodInput<'handoff_since_review'>): Promise<MethodOutputs['handoff_since_review']> {
    const h = q.visibleRecord(caller, input.handoffId);
    const w = q.workspaces.get(h.id);
    const from = w?.continues?.reviewedHead ?? null;
    const to = w?.evidence?.head ?? null;
    if (!w || !from || !to) return { from: null, to: null, files: [] };
    if (!(await commitOf(w.repo, from))) throw new RoomError('CONFLICT', `the commit reviewed last time (${from.slice(0, 7)}) is no longer in ${w.repo}: read the whole change instead`);
    return { from, to, files: await diffBetween(w.repo, from, to) };
  }

  async function reject(caller: Caller, input: MethodInput<'handoff_reject'>): Promise<MethodOutputs['handoff_reject']> {
    const before = q.visibleRecord(caller, input.handoffId);
    const comments = input.comments ?? [];
    steps.reject(caller, input, comments);
    const h = q.handoffs.get(before.id) ?? before;
    const assignee = h.assignee;
    let followUp: MethodOutputs['handoff_create']['handoff'] | undefined;
    if (input.again) {
      if (!assignee) throw new RoomError('CONFLICT', `handoff ${h.id} was rejected, but nobody worked on it to send it back to: create a new handoff`);
      const summary = `Changes requested: ${h.summary}`.slice(0, LIMITS.maxHandoffSummaryChars);
      const w = q.workspaces.get(h.id);
      const hasTree = w !== null && (w.state === 'ready' || w.state === 'kept') && w.path !== null;
      const constraints = hasTree ? undefined : `Rejected ${h.id}: ${input.reason}`.slice(0, LIMITS.maxHandoffSummaryChars);
      followUp = (await steps.create(caller, { summary, to: assignee, ...(hasTree ? { continues: h.id } : {}), ...(constraints ? { constraints } : {}) })).handoff;
    }
    let typedInto = 0;
    if (assignee) {
      const line = changesRequestedLine(caller.name, h.id, input.reason, comments, followUp?.id ?? null);
      typedInto = typeToAgent(assignee, line, h.id);
      // Enter on its own, a moment later: a client that reads a burst of input as a paste would take it as a newline
      if (typedInto > 0) setTimeout(() => typeToAgent(assignee, '\r', h.id), 150).unref();
    }
    return { handoff: q.get(caller, h.id), ...(followUp ? { followUp: q.get(caller, followUp.id) } : {}), typedInto };
  }

  /** A file at one of the commits the review is about, for the lines around a hunk (text up to FILE_BYTES). */
  async function file(caller: Caller, input: MethodInput<'handoff_file'>): Promise<MethodOutputs['handoff_file']> {
    const h = q.visibleRecord(caller, input.handoffId);
    const w = q.workspaces.get(h.id);
    const commit = !w ? null : input.at === 'base' ? w.baseCommit : input.at === 'head' ? (w.evidence?.head ?? null) : (w.continues?.reviewedHead ?? null);
    if (!w || !commit) return { content: null, why: `handoff ${h.id} has no ${input.at === 'base' ? 'workspace' : input.at === 'head' ? 'captured change' : 'earlier review'}` };
    const size = await git(w.repo, ['cat-file', '-s', `${commit}:${input.path}`]);
    if (size.status !== 0) return { content: null, why: `${input.path} is not in ${commit.slice(0, 7)}` };
    if (Number(size.stdout.trim()) > FILE_BYTES) return { content: null, why: `${input.path} is larger than ${FILE_BYTES / 1024 / 1024} MiB` };
    // cat-file blob: the bytes as stored, no textconv or filter (the room's git turns their drivers off besides)
    const out = await git(w.repo, ['cat-file', 'blob', `${commit}:${input.path}`]);
    if (out.status !== 0) return { content: null, why: `${input.path} could not be read at ${commit.slice(0, 7)}` };
    if (out.stdout.includes('\0')) return { content: null, why: `${input.path} is binary` };
    return { content: out.stdout };
  }

  return { preview, sinceReview, reject, file };
}
