import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { MethodInput, MethodName, MethodOutputs } from '../../common/contract';
import { git } from '../workspaces/index';

/** A call through Engine.call (authorised, validated, audited) as `caller`. */
export type Invoke = <M extends MethodName>(caller: Caller, method: M, input: MethodInput<M>) => Promise<MethodOutputs[M]>;

/** A task given to an agent the room starts: its handoff, and where and how the agent begins on it. */
export interface AgentTask {
  handoffId: string;
  /** Where the agent starts: the handoff's worktree, or the folder asked for when there is no repository. */
  cwd: string;
  /** Its first prompt: the task, with where it works and how it hands the work back. */
  prompt: string;
}

/** Whether `folder` is inside a git repository's working tree (asked with the room's own git, which runs nothing of the repository's). */
async function inRepository(folder: string): Promise<boolean> {
  const out = await git(folder, ['rev-parse', '--is-inside-work-tree']).catch(() => null);
  return out?.status === 0 && out.stdout.trim() === 'true';
}

/**
 * Hands `input.task` to the participant `name` as the person (`operator`): a handoff addressed to it, with a
 * worktree of its own in `input.repo` (default: `cwd`, when that is in a repository), accepted as the agent so the
 * worktree is made before the agent starts in it. Answers where the agent starts and its first prompt.
 */
export async function handTask(invoke: Invoke, operator: Caller, agent: Caller, name: string, input: MethodInput<'agent_start'> & { task: string }, cwd: string): Promise<AgentTask> {
  const cwdInRepo = input.repo === undefined && (await inRepository(cwd));
  if (input.base !== undefined && input.repo === undefined && !cwdInRepo) {
    throw new RoomError('INVALID_INPUT', `base is for a task in a repository: give repo, or a cwd inside a git repository (${cwd} is not in one)`);
  }
  // a relative or otherwise unusable repo is refused by handoff_create's own workspace check, before anything is made
  const repo = input.repo ?? (cwdInRepo ? cwd : undefined);
  const { handoff } = await invoke(operator, 'handoff_create', {
    summary: input.task,
    to: name,
    ...(repo !== undefined ? { workspace: { repo, ...(input.base !== undefined ? { base: input.base } : {}) } } : {}),
  });
  try {
    const accepted = (await invoke(agent, 'handoff_accept', { handoffId: handoff.id })).handoff;
    const w = accepted.workspace;
    const where = w?.path ? `a git worktree of its own, ${w.path}, on branch ${w.branch} (from ${w.base})` : cwd;
    const prompt =
      `${input.task}\n\n` +
      `(From the room: this is handoff ${handoff.id}. You work in ${where}.${w?.path ? ' Commit your work there.' : ''} ` +
      `When it is done, call the commonroom tool handoff_complete with handoffId "${handoff.id}" and a short summary as result; the person reviews it${w?.path ? ' and the commits' : ''}.)`;
    return { handoffId: handoff.id, cwd: w?.path ?? cwd, prompt };
  } catch (error) {
    await invoke(operator, 'handoff_cancel', { handoffId: handoff.id, reason: `the agent could not take it: ${(error as Error).message}` }).catch(() => undefined);
    throw error;
  }
}
