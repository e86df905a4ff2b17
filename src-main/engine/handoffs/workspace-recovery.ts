import fs from 'node:fs';
import type { EngineContext, EventInput } from '../room/index';
import { killTree, type TaggedProcess } from '../process/process-tree';
import { toCaller } from '../store/participants';
import type { WorkspaceIntent } from '../store/workspaces';
import { lockSince, restorePaths } from '../workspaces/index';
import { git } from '../workspaces/index';
import { clearLeftovers } from '../workspaces/index';
import { gitTagPrefix } from '../workspaces/index';
import type { HandoffActions } from './handoff-actions';
import type { workspaceSteps } from './workspace-steps';

type Steps = ReturnType<typeof workspaceSteps>;
const short = (sha: string | null) => (sha ?? '').slice(0, 7);

/** Removes a git lock file of `where` (`gitPath`: index.lock, a ref's .lock) made by the step after `since`; its path, or null. */
async function removeOwnLock(where: string, gitPath: string, since: string): Promise<string | null> {
  const lock = await lockSince(where, gitPath, since);
  if (lock) fs.rmSync(lock, { force: true });
  return lock;
}

/**
 * A merge a crash cut short. The branch tells how far it got: at the merged commit, the merge happened (the
 * checkout's recorded paths are made to match it, and the approval is recorded as the approver made it); at the
 * previous tip, it did not (the recorded paths are put back to the tip, index too: the checkout is as before).
 * Only those paths are written: the person's own changes to other files are never touched. A git lock is
 * removed only when the step was at the point that makes one and it is newer than that point (the room's git,
 * ended at start, held it: no other git could make it while it existed).
 */
async function recoverMerge(ctx: EngineContext, actions: HandoffActions, steps: Steps, i: WorkspaceIntent): Promise<EventInput> {
  const into = i.ref.replace(/^refs\/heads\//, '');
  const locks: string[] = [];
  if (i.worktree && i.phase === 'checkout') locks.push(...[await removeOwnLock(i.worktree, 'index.lock', i.phaseAt)].filter((l): l is string => l !== null));
  if (i.phase === 'ref') locks.push(...[await removeOwnLock(i.repo, `${i.ref}.lock`, i.phaseAt)].filter((l): l is string => l !== null));
  const at = (await git(i.repo, ['rev-parse', '--verify', '--quiet', `${i.ref}^{commit}`])).stdout.trim();
  const env = steps.service.gitEnv(i.id);
  let outcome: 'merged' | 'rolled back' | 'left';
  if (at === i.target) {
    if (i.worktree) await restorePaths(i.worktree, i.target, i.paths, env);
    outcome = 'merged';
  } else if (at === i.previous) {
    if (i.worktree) await restorePaths(i.worktree, i.previous, i.paths, env);
    outcome = 'rolled back';
  } else {
    outcome = 'left';
  }
  const data = { outcome, into, commit: i.target, previous: i.previous, reviewed: i.data.head ?? null, files: i.paths.length, locksRemoved: locks, checkout: i.worktree };
  const message =
    outcome === 'merged'
      ? `the runner stopped while merging ${short(i.target)} into ${into}; ${into} had moved, so on restart the merge was finished${i.worktree ? ` (${i.paths.length} file(s) of ${i.worktree} made to match it)` : ''} and the approval recorded`
      : outcome === 'rolled back'
        ? `the runner stopped while merging ${short(i.target)} into ${into}, before ${into} moved; on restart ${i.worktree ? `the ${i.paths.length} file(s) it had begun writing in ${i.worktree} were put back to ${short(i.previous)}: the checkout is as it was` : 'nothing needed putting back'}. The handoff still waits for a decision: approve again`
        : `the runner stopped while merging ${short(i.target)} into ${into}; ${into} is now at ${short(at) || 'nothing'} (neither the merge nor its previous commit: moved by someone else), so the room left the checkout as it is`;
  const h = actions.q.handoffs.get(i.handoffId);
  const w = actions.q.workspaces.get(i.handoffId);
  ctx.commit(() => {
    if (outcome === 'merged' && h?.status === 'result_ready') {
      const by = typeof i.data.by === 'string' ? ctx.room.participants.byName(i.data.by) : null;
      const record = by && by.revokedAt === null ? by : ctx.room.participants.operator();
      if (record) {
        const merge = { into, commit: i.target, fastForward: i.data.fastForward === true, by: record.name, at: ctx.now() };
        actions.decide(toCaller(record), i.handoffId, true, typeof i.data.reason === 'string' ? i.data.reason : null, { merge, state: 'merged' });
      }
    }
    // the workspace line of the review says it too, until the next step on it
    if (outcome !== 'merged' && w) actions.q.workspaces.update(i.handoffId, { note: message }, ctx.now());
    steps.service.intents.delete(i.id);
    return { value: undefined, events: [] };
  });
  if (outcome === 'merged' && w) await steps.tidy(w, { keepBranch: false, merged: true, state: 'merged', note: message });
  return { kind: 'workspace.merge_recovered', actor: null, subject: i.handoffId, data: { ...data, message } };
}

/** An accept a crash cut short: committed (nothing to do), or not (its worktree and branch are cleared, so it can be accepted again). */
async function recoverAccept(ctx: EngineContext, actions: HandoffActions, steps: Steps, i: WorkspaceIntent): Promise<EventInput> {
  const w = actions.q.workspaces.get(i.handoffId);
  let data: Record<string, unknown> = { outcome: 'accepted' };
  if (w?.state === 'planned' && i.worktree) {
    await removeOwnLock(i.repo, `${i.ref}.lock`, i.createdAt);
    const cleared = await clearLeftovers(i.repo, i.worktree, i.ref.replace(/^refs\/heads\//, ''), i.target);
    data = { outcome: 'cleared', ...cleared, message: `the runner stopped while making the worktree for this handoff's accept; on restart what it had made was removed (${cleared.removed.join(', ') || 'nothing was there'}): the handoff can be accepted again` };
  }
  ctx.commit(() => ({ value: steps.service.intents.delete(i.id), events: [] }));
  return { kind: 'workspace.accept_recovered', actor: null, subject: i.handoffId, data };
}

/**
 * At start: every step on a person's repository a crash cut short (workspace_intents) is finished or undone,
 * each under its repository's lock, after any git the dead runner left running is ended; the outcome goes in
 * the handoff's events. A step that cannot be put right now stays recorded (tried again at the next start) and
 * says why in an event.
 */
export async function recoverIntents(ctx: EngineContext, actions: HandoffActions, steps: Steps, tagged: readonly TaggedProcess[]): Promise<void> {
  const intents = steps.service.intents.all();
  if (intents.length === 0) return;
  const prefix = gitTagPrefix(ctx.room.id);
  if (tagged.some((p) => p.tag.startsWith(prefix))) await killTree({ tag: prefix, prefix: true }, { signals: ['SIGKILL'], graceMs: 2000 });
  for (const i of intents) {
    let event: EventInput;
    try {
      event = await steps.service.locks.with(i.repo, `recovering handoff ${i.handoffId}`, () => (i.kind === 'merge' ? recoverMerge(ctx, actions, steps, i) : recoverAccept(ctx, actions, steps, i)));
    } catch (error) {
      event = { kind: 'workspace.recovery_failed', actor: null, subject: i.handoffId, data: { kind: i.kind, repo: i.repo, problem: (error as Error).message } };
    }
    ctx.commit(() => ({ value: undefined, events: [event] }));
  }
}
