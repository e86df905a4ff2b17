import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { LineComment } from '../../common/handoff-dto';
import type { EngineContext } from '../room/index';
import { decodeCursor, encodeCursor, numberAt } from '../core/paging';
import type { WorkspaceRecord } from '../store/workspaces';
import { withoutCommitFsync } from '../store/unsynced-commit';
import { gitRead } from '../workspaces/index';
import { branchMayExist, clearLeftovers } from '../workspaces/index';
import { WorkspaceService, workspaceBranch } from '../workspaces/index';
import type { HandoffActions } from './handoff-actions';
import { mustBeOwnerOrApprover } from './handoff-roles';

/** One page of handoff_evidence holds at most this much patch text (a page of huge patches stops early). */
const PAGE_BYTES = 1024 * 1024;

/** Ends `owner`'s shells (null: everyone's) opened in `folder` (or below it), saying `why`; how many. The engine's ShellRegistry does it. */
export type CloseShellsIn = (owner: string | null, folder: string, why?: string) => Promise<number>;

const hasWorktree = (w: WorkspaceRecord | null): boolean => w !== null && (w.state === 'ready' || w.state === 'kept') && w.path !== null;

/**
 * The handoff steps that involve its workspace: git runs outside the transaction (before the step is committed,
 * so a refusal changes nothing; or after it, to tidy), and what it found is written by the step's own commit.
 */
export function workspaceSteps(ctx: EngineContext, actions: HandoffActions, closeShellsIn: CloseShellsIn = async () => 0, service = new WorkspaceService(ctx)) {
  const { q } = actions;

  /** After a step that ends the work: the worktree goes if nothing would be lost; the row says what stayed. */
  async function tidy(w: WorkspaceRecord, options: { keepBranch: boolean; merged?: boolean; state: 'merged' | 'removed' | 'kept'; note: string | null }): Promise<void> {
    // the work ended: nothing runs on in its worktree (no shell is left in a folder that is removed)
    if (w.path) await closeShellsIn(null, w.path, `its handoff ended: ${options.state === 'merged' ? 'approved and merged' : (options.note ?? options.state)}`);
    const out = await service.tidy(w, options);
    const state = options.state === 'merged' ? 'merged' : out.removed ? options.state : 'kept';
    const note = [options.note, out.note].filter((n) => n !== null).join('; ') || null;
    ctx.commit(() => {
      q.workspaces.update(w.handoffId, { state, note }, ctx.now());
      return { value: undefined, events: [{ kind: out.removed ? 'workspace.removed' : 'workspace.kept', actor: null, subject: w.handoffId, data: { path: w.path, branch: w.branch, note } }] };
    });
  }

  let tidying: Promise<void> | null = null;
  /** One pass at a time: a cancel and the sweeper's round may ask at once. */
  function tidyCancelled(): Promise<void> {
    tidying ??= (async () => {
      try {
        for (const w of q.workspaces.ofCancelled()) {
          if (w.state === 'planned') {
            ctx.commit(() => {
              q.workspaces.update(w.handoffId, { state: 'removed', note: 'cancelled before it was accepted: no worktree was made' }, ctx.now());
              return { value: undefined, events: [] };
            });
          } else {
            await tidy(w, { keepBranch: false, state: 'removed', note: 'cancelled' });
          }
        }
      } finally {
        tidying = null;
      }
    })();
    return tidying;
  }

  /**
   * A planned workspace on a host: its node makes the worktree in the host's clone (a second ask answers with
   * the one it made, so an accept cut short is simply asked again), then the accept is committed; if that
   * fails, the worktree there is removed.
   */
  async function acceptOnHost(caller: Caller, id: string, w: WorkspaceRecord): Promise<MethodOutputs['handoff_accept']> {
    const made = await service.open(w);
    try {
      return { handoff: ctx.commit(() => ({ value: actions.accept(caller, id, made.path), events: [] })) };
    } catch (error) {
      await made.undo();
      throw error;
    }
  }

  return {
    service,

    async create(caller: Caller, input: MethodInput<'handoff_create'>): Promise<MethodOutputs['handoff_create']> {
      if (input.workspace) {
        const { host, hostRepo } = input.workspace;
        // on a host: its clone there is named by the handoff; the base is resolved here, in the repository the
        // work is reviewed and merged in (the host's clone must have that commit: its node says so at accept)
        if (host !== undefined) {
          service.hostPort(host, caller);
          // eslint-disable-next-line no-control-regex -- refusing control characters is the point
          if (!hostRepo || !hostRepo.startsWith('/') || /[\u0000-\u001f\u007f]/.test(hostRepo)) throw new RoomError('INVALID_INPUT', `workspace.hostRepo ${JSON.stringify(hostRepo ?? '')} is not an absolute path (without control characters): give the path of the repository's clone on ${host}`);
        }
        const plan = await service.plan(input.workspace.repo, input.workspace.base);
        const onHost = host !== undefined ? { host, hostRepo: hostRepo as string } : {};
        return actions.create(caller, input, (id) => ({ handoffId: id, ...plan, ...onHost, branch: workspaceBranch(id), path: null, state: 'planned', continues: null, at: ctx.now() }));
      }
      if (input.continues) {
        const prior = q.visibleRecord(caller, input.continues);
        const w = q.workspaces.get(prior.id);
        if (prior.status !== 'rejected') throw new RoomError('CONFLICT', `handoff ${prior.id} is ${prior.status}: only a rejected handoff's work is continued (continues)`);
        if (prior.owner !== caller.name && !caller.capabilities.includes('approve')) throw new RoomError('FORBIDDEN', `only handoff ${prior.id}'s owner (${prior.owner}) or a participant who can approve continues it`);
        if (!w || !hasWorktree(w)) throw new RoomError('CONFLICT', `handoff ${prior.id} has no worktree to go on in${w ? ` (its workspace is ${w.state})` : ''}: create the follow-up with workspace instead`);
        const reason = prior.decision?.reason ?? null;
        // what the follow-up is reviewed against: the commit decided on, and the comments made on it
        const said = { ...(prior.decision?.comments ? { comments: prior.decision.comments } : {}), reviewedHead: prior.decision?.reviewedHead ?? w.evidence?.head ?? null };
        return actions.create(caller, input, (id) => {
          q.workspaces.update(prior.id, { state: 'kept', note: `continued in ${id}` }, ctx.now());
          const { handoffId: _p, createdAt: _c, updatedAt: _u, evidence: _e, merge: _m, note: _n, runs: _r, continues: _k, ...same } = w;
          return { ...same, handoffId: id, state: 'ready', continues: { handoffId: prior.id, reason, ...said }, at: ctx.now() };
        });
      }
      return actions.create(caller, input);
    },

    /**
     * A planned workspace's worktree is made under the repository's lock, its intent recorded first: what a
     * crash left of an earlier attempt (an intent, or the handoff's own branch at the base commit, which nobody
     * had yet, with its folder or without: git makes the branch first, and a crash of the machine may keep any
     * part of what was written) is cleared and recorded, so the handoff can always be accepted again.
     */
    async accept(caller: Caller, id: string): Promise<MethodOutputs['handoff_accept']> {
      const h = actions.checkAccept(caller, id);
      const w = q.workspaces.get(h.id);
      if (w?.state !== 'planned') return { handoff: actions.accept(caller, id) };
      if (w.host) return acceptOnHost(caller, id, w);
      return service.locks.with(w.repo, `accepting handoff ${h.id}`, async () => {
        actions.checkAccept(caller, id);
        const folder = service.folderFor(w, h.id);
        const earlier = service.intents.of(h.id, 'accept');
        const at = branchMayExist(w.repo, w.branch) ? await gitRev(w.repo, w.branch) : null;
        if (earlier.length > 0 || at === w.baseCommit) {
          const cleared = await clearLeftovers(w.repo, folder, w.branch, w.baseCommit);
          ctx.commit(() => {
            for (const i of earlier) service.intents.delete(i.id);
            return { value: undefined, events: [{ kind: 'workspace.leftovers_cleared', actor: null, subject: h.id, data: { ...cleared, why: 'an earlier accept was cut short (the runner stopped) before it was recorded' } }] };
          });
        }
        // recorded without an fsync of its own (one less before the worktree is made): a crash of the process
        // loses nothing (the WAL is in the OS), and the accept's commit below makes it durable with itself; a crash
        // of the machine before that commit may lose it, and then the next accept finds what git had made by the
        // branch at the base commit (above), as after a crash before the intent was written
        const intentId = withoutCommitFsync(ctx.room.db, () =>
          ctx.commit(() => ({
            value: service.intents.insert({ handoffId: h.id, kind: 'accept', repo: w.repo, ref: `refs/heads/${w.branch}`, worktree: folder, target: w.baseCommit, previous: null, paths: [], data: {} }, ctx.now()),
            events: [],
          })),
        );
        const forget = () => ctx.commit(() => ({ value: service.intents.delete(intentId), events: [] }));
        let made: Awaited<ReturnType<typeof service.open>>;
        try {
          made = await service.open(w, service.gitEnv(intentId));
        } catch (error) {
          forget();
          throw error;
        }
        try {
          return {
            handoff: ctx.commit(() => {
              const view = actions.accept(caller, id, made.path);
              service.intents.delete(intentId);
              return { value: view, events: [] };
            }),
          };
        } catch (error) {
          await made.undo();
          forget();
          throw error;
        }
      });
    },

    /** Completing ends the assignee's work in the worktree: its shells there are closed (before the capture and after). */
    async complete(caller: Caller, input: MethodInput<'handoff_complete'>): Promise<MethodOutputs['handoff_complete']> {
      const h = actions.checkComplete(caller, input.handoffId);
      const w = q.workspaces.get(h.id);
      if (!w || !hasWorktree(w) || !w.path) return { handoff: actions.complete(caller, input) };
      await closeShellsIn(caller.name, w.path);
      const handoff = actions.complete(caller, input, await service.capture(w));
      await closeShellsIn(caller.name, w.path);
      return { handoff };
    },

    /**
     * Captures a completed handoff's worktree again (its owner, or who may approve; never the assignee, whose
     * work ended at completion): the new evidence replaces the old, and an event says what changed.
     */
    async recapture(caller: Caller, input: MethodInput<'handoff_recapture'>): Promise<MethodOutputs['handoff_recapture']> {
      const h = q.visibleRecord(caller, input.handoffId);
      mustBeOwnerOrApprover(caller, h, 're-captures its evidence');
      if (h.status !== 'result_ready') throw new RoomError('CONFLICT', `handoff ${h.id} is ${h.status}: evidence is re-captured only while it waits for a decision (result_ready)`);
      const w = q.workspaces.get(h.id);
      if (!w || !hasWorktree(w)) throw new RoomError('CONFLICT', `handoff ${h.id} has no worktree to capture${w ? ` (its workspace is ${w.state})` : ''}`);
      const captured = await service.capture(w);
      ctx.commit(() => {
        const now = q.handoffs.get(h.id);
        if (now?.status !== 'result_ready') throw new RoomError('CONFLICT', `handoff ${h.id} is ${now?.status ?? 'gone'}: its evidence was not re-captured`);
        q.workspaces.update(h.id, { evidence: captured.summary }, ctx.now());
        q.workspaces.setFiles(h.id, captured.files);
        const s = captured.summary;
        const data = { taskId: h.taskId, previousHead: w.evidence?.head ?? null, head: s.head, files: s.files, additions: s.additions, deletions: s.deletions, commits: s.commitCount, uncommitted: s.uncommittedCount };
        return { value: undefined, events: [{ kind: 'handoff.recaptured', actor: caller.name, subject: h.id, data }] };
      });
      return { handoff: q.get(caller, h.id) };
    },

    async approve(caller: Caller, input: MethodInput<'handoff_approve'>): Promise<MethodOutputs['handoff_approve']> {
      const reason = input.reason ?? null;
      const h = actions.checkDecide(caller, input.handoffId, true);
      const w = q.workspaces.get(h.id);
      if (!input.merge) {
        const handoff = actions.decide(caller, h.id, true, reason);
        if (w && hasWorktree(w)) {
          await tidy(w, { keepBranch: true, state: 'removed', note: `approved without merging: the work stays on branch ${w.branch}` });
          return { handoff: q.get(caller, h.id) };
        }
        return { handoff };
      }
      if (!w) throw new RoomError('INVALID_INPUT', `handoff ${h.id} has no workspace: there is nothing to merge (approve without merge)`);
      if (!hasWorktree(w)) throw new RoomError('CONFLICT', `handoff ${h.id}'s workspace is ${w.state}${w.note ? ` (${w.note})` : ''}: there is nothing to merge`);
      // one step on a repository at a time; a second approval waits, then is judged on what the first left
      return service.locks.with(w.repo, `merging handoff ${h.id}`, async () => {
        const now = actions.checkDecide(caller, h.id, true);
        const ws = q.workspaces.get(h.id);
        if (!ws || !hasWorktree(ws)) throw new RoomError('CONFLICT', `handoff ${h.id}'s workspace is ${ws?.state ?? 'gone'}: there is nothing to merge`);
        if (input.commit !== undefined && !(ws.evidence?.head ?? '').startsWith(input.commit.toLowerCase())) {
          throw new RoomError('CONFLICT', `the evidence of handoff ${h.id} now shows commit ${(ws.evidence?.head ?? 'none').slice(0, 7)}, not ${input.commit.slice(0, 7)} that you reviewed (it was re-captured meanwhile): nothing was merged; review it again, then approve`);
        }
        const { plan, intentId } = await service.merge(ws, now, { by: caller.name, reason });
        const merge = { into: plan.into, commit: plan.target, fastForward: plan.fastForward, by: caller.name, at: ctx.now() };
        try {
          ctx.commit(() => {
            actions.decide(caller, h.id, true, reason, { merge, state: 'merged' });
            service.intents.delete(intentId);
            return { value: undefined, events: [] };
          });
        } catch (error) {
          ctx.commit(() => {
            service.intents.delete(intentId);
            return { value: undefined, events: [{ kind: 'workspace.merged_undecided', actor: caller.name, subject: h.id, data: { into: plan.into, commit: plan.target, problem: (error as Error).message } }] };
          });
          throw new RoomError('CONFLICT', `${plan.into} now has ${plan.target.slice(0, 7)} (the reviewed ${plan.head.slice(0, 7)}), but the approval could not be recorded: ${(error as Error).message}`);
        }
        await tidy(ws, { keepBranch: false, merged: true, state: 'merged', note: null });
        return { handoff: q.get(caller, h.id), merged: { into: merge.into, commit: merge.commit, fastForward: merge.fastForward } };
      });
    },

    /** `comments`: lines of the diff the rejection points at, kept with the decision and the commit it was made on. */
    reject(caller: Caller, input: MethodInput<'handoff_reject'>, comments: LineComment[] = []): MethodOutputs['handoff_reject'] {
      const w = q.workspaces.get(input.handoffId);
      const keep = hasWorktree(w) ? { note: 'rejected: the worktree stays, for a follow-up handoff to go on in (handoff_create with continues)' } : undefined;
      const reviewedHead = w?.evidence?.head;
      return { handoff: actions.decide(caller, input.handoffId, false, input.reason, keep, { ...(comments.length > 0 ? { comments } : {}), ...(reviewedHead ? { reviewedHead } : {}) }) };
    },

    async cancel(caller: Caller, input: MethodInput<'handoff_cancel'>): Promise<MethodOutputs['handoff_cancel']> {
      const handoff = actions.cancel(caller, input.handoffId, input.reason ?? null);
      await tidyCancelled();
      return { handoff: q.get(caller, handoff.id) };
    },

    tidy,

    /** Tidies the workspaces of cancelled handoffs: after handoff_cancel, and on the sweeper's round (tasks/cancel, the TTL). */
    tidyCancelled: () => tidyCancelled(),

    evidence(caller: Caller, input: MethodInput<'handoff_evidence'>): MethodOutputs['handoff_evidence'] {
      const h = q.visibleRecord(caller, input.handoffId);
      const w = q.workspaces.get(h.id);
      if (!w?.evidence) return { evidence: w?.evidence ?? null, files: [], nextCursor: null };
      const restart = 'start from the first file';
      const from = input.cursor === undefined ? 0 : numberAt(decodeCursor(input.cursor, 'evidence', h.id, restart), 0, restart);
      const limit = input.limit ?? 50;
      const rows = q.workspaces.files(h.id, from, limit + 1, input.patches ?? true);
      const files = [];
      let bytes = 0;
      for (const row of rows.slice(0, limit)) {
        const size = row.file.patch === null ? 0 : Buffer.byteLength(row.file.patch);
        if (files.length > 0 && bytes + size > PAGE_BYTES) break;
        bytes += size;
        files.push(row);
      }
      const next = rows[files.length];
      return { evidence: w.evidence, files: files.map((r) => r.file), nextCursor: next ? encodeCursor('evidence', h.id, [next.ord]) : null };
    },
  };
}

/** The commit a branch is at, or null when there is no such branch. */
async function gitRev(repo: string, branch: string): Promise<string | null> {
  const out = await gitRead(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`]);
  return out.status === 0 ? out.stdout.trim() : null;
}
