import fs from 'node:fs';
import path from 'node:path';
import type { Caller } from '../../common/dto';
import type { HandoffView } from '../../common/handoff-dto';
import { RoomError } from '../../common/errors';
import type { MethodInput, MethodName, MethodOutputs } from '../../common/contract';
import { gitRead } from '../workspaces/index';
import { worktreeEnv, worktreeEnvText } from '../../common/worktree-env';
import { uniqueParticipantName, type AgentClient } from '../../common/agent-clients';
import type { EngineContext } from '../room/index';
import type { RemoteAgentPort } from '../hosts/index';

/** A call through Engine.call (authorised, validated, audited) as `caller`. */
export type Invoke = <M extends MethodName>(caller: Caller, method: M, input: MethodInput<M>) => Promise<MethodOutputs[M]>;

/** A task given to an agent the room starts: its handoff, and where and how the agent begins on it. */
export interface AgentTask {
  handoffId: string;
  /** Where the agent starts: the handoff's worktree, or the folder asked for when there is no repository. */
  cwd: string;
  /** Its first prompt: the task, with where it works and how it hands the work back. */
  prompt: string;
  /** Its worktree's own values (ports, name), for its environment; empty without a worktree. */
  env: Record<string, string>;
  /** The host its worktree is on (docs/hosts.md), null: this machine; undefined: it has no worktree. */
  host: string | null | undefined;
}

/**
 * Whether `folder` is in a git repository's working tree: a `.git` (a folder, or a linked worktree's file) in it
 * or in a folder above, read from the file system (no git process on a task's start; nothing of the
 * repository's is run). handoff_create's own git then checks that it is a repository git works in.
 */
function inRepository(folder: string): boolean {
  for (let dir = path.resolve(folder); ; dir = path.dirname(dir)) {
    try {
      const st = fs.lstatSync(path.join(dir, '.git'));
      if (st.isDirectory() || st.isFile()) return true;
    } catch {
      // not here
    }
    if (path.dirname(dir) === dir) return false;
  }
}

/**
 * Hands `input.task` to the participant `name` as the person (`operator`): a handoff addressed to it, with a
 * worktree of its own in `input.repo` (default: `cwd`, when that is in a repository) or, with `input.continues`,
 * the rejected handoff's worktree gone on in; accepted as the agent so the worktree is there before the agent
 * starts in it. Answers where the agent starts and its first prompt.
 */
export async function handTask(invoke: Invoke, operator: Caller, agent: Caller, name: string, input: MethodInput<'agent_start'> & { task: string }, cwd: string): Promise<AgentTask> {
  if (input.continues !== undefined && (input.repo !== undefined || input.base !== undefined)) {
    throw new RoomError('INVALID_INPUT', `continues goes on in handoff ${input.continues}'s own worktree: leave repo and base out`);
  }
  // on a host, cwd is a folder there: the repository is named (repo here, hostRepo there), never looked for
  const cwdInRepo = input.continues === undefined && input.repo === undefined && input.host === undefined && inRepository(cwd);
  if (input.base !== undefined && input.repo === undefined && !cwdInRepo) {
    throw new RoomError('INVALID_INPUT', `base is for a task in a repository: give repo, or a cwd inside a git repository (${cwd} is not in one)`);
  }
  // a relative or otherwise unusable repo is refused by handoff_create's own workspace check, before anything is made
  const repo = input.repo ?? (cwdInRepo ? cwd : undefined);
  // a follow-up "Request changes" already made for this agent (not yet taken on) is the one it goes on with
  const waiting = input.continues !== undefined ? await openFollowUp(invoke, operator, input.continues, name) : null;
  const { handoff } = waiting
    ? { handoff: waiting }
    : await invoke(operator, 'handoff_create', {
        summary: input.task,
        to: name,
        ...(input.continues !== undefined ? { continues: input.continues } : {}),
        ...(repo !== undefined ? { workspace: { repo, ...(input.base !== undefined ? { base: input.base } : {}), ...(input.host !== undefined && input.hostRepo !== undefined ? { host: input.host, hostRepo: input.hostRepo } : {}) } } : {}),
      });
  try {
    const accepted = (await invoke(agent, 'handoff_accept', { handoffId: handoff.id })).handoff;
    const w = accepted.workspace;
    const where = w?.path ? `a git worktree of its own, ${w.path}, on branch ${w.branch} (from ${w.base})` : cwd;
    const comments = (w?.continues?.comments ?? []).map((c) => `${c.path}:${c.line}${c.side === 'old' ? ' (old)' : ''} ${c.text.replace(/\s+/g, ' ')}`).join('; ');
    const said = comments ? ` The person's comments on lines: ${comments.length > 1500 ? `${comments.slice(0, 1499)}…` : comments} (handoff_get ${w?.continues?.handoffId ?? ''} shows them all).` : '';
    const earlier = w?.continues ? ` It goes on with handoff ${w.continues.handoffId}, which was rejected${w.continues.reason ? `: "${w.continues.reason}"` : ''}; your earlier commits are there.${said}` : '';
    const prompt =
      `${input.task}\n\n` +
      `(From the room: this is handoff ${handoff.id}. You work in ${where}.${earlier}${w?.path ? ` Commit your work there; ${worktreeEnvText(handoff.id)}.` : ''} ` +
      `When it is done, call the commonroom tool handoff_complete with handoffId "${handoff.id}" and a short summary as result; the person reviews it${w?.path ? ' and the commits' : ''}.)`;
    return { handoffId: handoff.id, cwd: w?.path ?? cwd, prompt, env: w?.path ? worktreeEnv(handoff.id) : {}, host: w?.path ? (w.host ?? null) : undefined };
  } catch (error) {
    // (a follow-up the rejection made stays, for the agent to take on itself)
    if (!waiting) await invoke(operator, 'handoff_cancel', { handoffId: handoff.id, reason: `the agent could not take it: ${(error as Error).message}` }).catch(() => undefined);
    throw error;
  }
}

/** The follow-up of `rejected` that waits for `name` to take it on (handoff_reject with again made it), or null. */
async function openFollowUp(invoke: Invoke, operator: Caller, rejected: string, name: string): Promise<HandoffView | null> {
  const { handoffs } = await invoke(operator, 'handoff_list', { status: 'open', limit: 200 });
  return handoffs.find((h) => h.workspace?.continues?.handoffId === rejected && h.to === name) ?? null;
}

/** The participant that did a rejected handoff's work: a follow-up goes to it by default (agent_start with continues). */
export async function assigneeOf(invoke: Invoke, operator: Caller, handoffId: string): Promise<string> {
  const { handoff } = await invoke(operator, 'handoff_get', { handoffId });
  if (!handoff.assignee) throw new RoomError('CONFLICT', `handoff ${handoffId} was never taken on by anyone: there is no agent to follow up with (start one with task instead)`);
  return handoff.assignee;
}

/**
 * "Ready for review?": the run's handoff is still worked on (accepted), its client is idle at its prompt, and
 * its worktree's branch has commits past the base (a follow-up: past the rejected work's head). Asked with the room's own git (runs nothing of the repository's).
 */
export async function reviewOf(invoke: Invoke, operator: Caller, handoffId: string, idle: boolean, remote?: RemoteAgentPort): Promise<{ handoffId: string; commits: number; head: string } | null> {
  if (!idle) return null;
  const handoff = await invoke(operator, 'handoff_get', { handoffId }).then((r) => r.handoff, () => null);
  const w = handoff?.workspace;
  if (handoff?.status !== 'accepted' || handoff.task?.status !== 'working' || !w?.path || w.state !== 'ready') return null;
  // a follow-up counts from where the rejected work ended, not from the base (its earlier commits were reviewed)
  const prior = w.continues ? await invoke(operator, 'handoff_get', { handoffId: w.continues.handoffId }).then((r) => r.handoff.workspace?.evidence?.head ?? null, () => null) : null;
  if (w.host) {
    // a worktree on a host: read there, by its node, over the link (null while the host is out of reach)
    if (!remote || !w.hostRepo) return null;
    const there = await remote.commitsPast(w.host, { hostRepo: w.hostRepo, handoffId, since: prior ?? w.baseCommit }).catch(() => null);
    return there && there.commits > 0 ? { handoffId, ...there } : null;
  }
  const head = await gitRead(w.path, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']).catch(() => null);
  if (head?.status !== 0) return null;
  const count = await gitRead(w.path, ['rev-list', '--count', `${prior ?? w.baseCommit}..HEAD`]).catch(() => null);
  const commits = count?.status === 0 ? Number(count.stdout.trim()) : 0;
  return commits > 0 ? { handoffId, commits, head: head.stdout.trim() } : null;
}

/**
 * The run's participant (a new one named after the client, or the one asked for with a new token) and, with a
 * task, the person's handoff to it, accepted for it (its worktree made, here or on its host). A start that
 * fails here leaves no participant with a live token behind.
 */
export async function enlistAgent(ctx: EngineContext, invoke: Invoke, authenticate: (token: string) => Caller | null, operator: Caller, input: MethodInput<'agent_start'>, client: AgentClient, cwd: string): Promise<{ name: string; token: string; agentCaller: Caller; task: AgentTask | null }> {
  let name: string;
  let token: string;
  // a follow-up goes to the agent that did the rejected work, unless another is named
  const reuse = input.participant ?? (input.continues !== undefined ? await assigneeOf(invoke, operator, input.continues) : undefined);
  if (reuse) {
    const record = ctx.room.participants.byName(reuse);
    if (!record || record.revokedAt !== null || record.role !== 'agent') {
      throw new RoomError('NOT_FOUND', `no active agent named "${reuse}": ${input.participant ? 'leave participant out for a new one' : 'name another agent with participant'}, or see "ce participant list"`);
    }
    name = record.name;
    token = (await invoke(operator, 'participant_rotate', { name })).token;
  } else {
    name = uniqueParticipantName(client.participant, (n) => ctx.room.participants.byName(n) !== null);
    token = (await invoke(operator, 'participant_add', { name, capabilities: input.capabilities ?? ['read', 'write'] })).token;
  }
  const agentCaller = authenticate(token);
  if (!agentCaller) throw new RoomError('INTERNAL', 'the new token did not authenticate');
  // a task: the person's handoff to it, accepted for it (its worktree made), and where it starts
  let task: AgentTask | null = null;
  try {
    task = input.task !== undefined ? await handTask(invoke, operator, agentCaller, name, { ...input, task: input.task }, cwd) : null;
  } catch (error) {
    // a run that never started leaves no participant with a live token behind
    if (!reuse) await invoke(operator, 'participant_revoke', { name }).catch(() => undefined);
    throw error;
  }
  return { name, token, agentCaller, task };
}
