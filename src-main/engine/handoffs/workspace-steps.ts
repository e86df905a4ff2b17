import type { MethodInput, MethodOutputs } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { EngineContext } from '../feature';
import { decodeCursor, encodeCursor, numberAt } from '../paging';
import type { WorkspaceRecord } from '../store/workspaces';
import { WorkspaceService, workspaceBranch } from '../workspaces/workspace-service';
import type { HandoffActions } from './handoff-actions';

/** One page of handoff_evidence holds at most this much patch text (a page of huge patches stops early). */
const PAGE_BYTES = 1024 * 1024;

const hasWorktree = (w: WorkspaceRecord | null): boolean => w !== null && (w.state === 'ready' || w.state === 'kept') && w.path !== null;

/**
 * The handoff steps that involve its workspace: git runs outside the transaction (before the step is committed,
 * so a refusal changes nothing; or after it, to tidy), and what it found is written by the step's own commit.
 */
export function workspaceSteps(ctx: EngineContext, actions: HandoffActions, service = new WorkspaceService(ctx)) {
  const { q } = actions;

  /** After a step that ends the work: the worktree goes if nothing would be lost; the row says what stayed. */
  async function tidy(w: WorkspaceRecord, options: { keepBranch: boolean; merged?: boolean; state: 'merged' | 'removed' | 'kept'; note: string | null }): Promise<void> {
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

  return {
    service,

    async create(caller: Caller, input: MethodInput<'handoff_create'>): Promise<MethodOutputs['handoff_create']> {
      if (input.workspace) {
        const plan = await service.plan(input.workspace.repo, input.workspace.base);
        return actions.create(caller, input, (id) => ({ handoffId: id, ...plan, branch: workspaceBranch(id), path: null, state: 'planned', continues: null, at: ctx.now() }));
      }
      if (input.continues) {
        const prior = q.visibleRecord(caller, input.continues);
        const w = q.workspaces.get(prior.id);
        if (prior.status !== 'rejected') throw new RoomError('CONFLICT', `handoff ${prior.id} is ${prior.status}: only a rejected handoff's work is continued (continues)`);
        if (prior.owner !== caller.name && !caller.capabilities.includes('approve')) throw new RoomError('FORBIDDEN', `only handoff ${prior.id}'s owner (${prior.owner}) or a participant who can approve continues it`);
        if (!w || !hasWorktree(w)) throw new RoomError('CONFLICT', `handoff ${prior.id} has no worktree to go on in${w ? ` (its workspace is ${w.state})` : ''}: create the follow-up with workspace instead`);
        const reason = prior.decision?.reason ?? null;
        return actions.create(caller, input, (id) => {
          q.workspaces.update(prior.id, { state: 'kept', note: `continued in ${id}` }, ctx.now());
          const { handoffId: _p, createdAt: _c, updatedAt: _u, evidence: _e, merge: _m, note: _n, runs: _r, continues: _k, ...same } = w;
          return { ...same, handoffId: id, state: 'ready', continues: { handoffId: prior.id, reason }, at: ctx.now() };
        });
      }
      return actions.create(caller, input);
    },

    async accept(caller: Caller, id: string): Promise<MethodOutputs['handoff_accept']> {
      const h = actions.checkAccept(caller, id);
      const w = q.workspaces.get(h.id);
      if (w?.state !== 'planned') return { handoff: actions.accept(caller, id) };
      const made = await service.open(w);
      try {
        return { handoff: actions.accept(caller, id, made.path) };
      } catch (error) {
        await made.undo();
        throw error;
      }
    },

    async complete(caller: Caller, input: MethodInput<'handoff_complete'>): Promise<MethodOutputs['handoff_complete']> {
      const h = actions.checkComplete(caller, input.handoffId);
      const w = q.workspaces.get(h.id);
      if (!w || !hasWorktree(w)) return { handoff: actions.complete(caller, input) };
      return { handoff: actions.complete(caller, input, await service.capture(w)) };
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
      const out = await service.merge(w, h);
      const merge = { into: w.baseBranch as string, commit: out.commit, fastForward: out.fastForward, by: caller.name, at: ctx.now() };
      actions.decide(caller, h.id, true, reason, { merge, state: 'merged' });
      await tidy(w, { keepBranch: false, merged: true, state: 'merged', note: null });
      return { handoff: q.get(caller, h.id), merged: { into: merge.into, commit: merge.commit, fastForward: merge.fastForward } };
    },

    reject(caller: Caller, input: MethodInput<'handoff_reject'>): MethodOutputs['handoff_reject'] {
      const w = q.workspaces.get(input.handoffId);
      const keep = hasWorktree(w) ? { note: 'rejected: the worktree stays, for a follow-up handoff to go on in (handoff_create with continues)' } : undefined;
      return { handoff: actions.decide(caller, input.handoffId, false, input.reason, keep) };
    },

    async cancel(caller: Caller, input: MethodInput<'handoff_cancel'>): Promise<MethodOutputs['handoff_cancel']> {
      const handoff = actions.cancel(caller, input.handoffId, input.reason ?? null);
      await tidyCancelled();
      return { handoff: q.get(caller, handoff.id) };
    },

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
