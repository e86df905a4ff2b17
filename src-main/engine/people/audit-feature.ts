import type { MethodName } from '../../common/contract';
import type { Caller } from '../../common/dto';
import { toPublicError } from '../../common/errors';
import type { Feature } from '../room/index';
import { AuditRepo } from '../store/audit';
import { decodeCursor, encodeCursor, numberAt } from '../core/paging';

/** audit_list: the audit ring, newest first, for operators. */
/** The audit log's repository, built here, by its owner: keeps the newest `ringSize` rows; `failed` hears a write that failed. */
export function openAuditLog(db: ConstructorParameters<typeof AuditRepo>[0], ringSize: number, failed: ConstructorParameters<typeof AuditRepo>[2]): AuditRepo {
  return new AuditRepo(db, ringSize, failed);
}

export function auditFeature(audit: AuditRepo): Feature<'audit_list'> {
  return {
    name: 'audit',
    handlers: {
      audit_list: (_caller, input) => {
        const restart = 'start from the newest entry';
        const before = input.cursor === undefined ? null : numberAt(decodeCursor(input.cursor, 'audit', '', restart), 0, restart);
        const page = audit.page(before, input.limit ?? 100, input.participant);
        const last = page.entries.at(-1);
        return { entries: page.entries, nextCursor: page.more && last ? encodeCursor('audit', '', [last.id]) : null };
      },
    },
  };
}

/** Records one call in the audit ring; a failure to record is reported on one line and never fails the call. */
export function recordCall(audit: AuditRepo, at: string, caller: Caller, method: MethodName, startedMs: number, error: unknown, input: unknown): void {
  try {
    audit.append({
      at,
      participant: caller.name,
      method,
      outcome: error === undefined ? 'ok' : toPublicError(error).code,
      durationMs: Math.max(0, Math.round(performance.now() - startedMs)),
      target: targetOf(method, input),
    });
  } catch (failure) {
    console.error(`[audit] could not record ${method} by ${caller.name}: ${failure instanceof Error ? failure.message : 'unknown'}`);
  }
}

/**
 * The id a call named, or null: an id of the room's own shapes (sh_…, gr_…, hf_…, tk_…, a graph's stage as
 * gr_…:stage), or a participant's name for the participant methods. Read from the raw input, so anything else
 * an agent put there (a made-up id, a shell's name) is never kept: the audit log holds no argument text.
 */
const ID = /^(sh|gr|hf|tk)_[A-Za-z0-9_-]{8,43}$/;
export function targetOf(method: string, input: unknown): string | null {
  if (input === null || typeof input !== 'object') return null;
  const record = input as Record<string, unknown>;
  for (const key of ['shellId', 'graphId', 'handoffId', 'taskId'] as const) {
    const value = record[key];
    if (typeof value !== 'string' || !ID.test(value)) continue;
    const stage = record.stageId;
    return key === 'graphId' && typeof stage === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(stage) ? `${value}:${stage}` : value;
  }
  if (method.startsWith('participant_') && typeof record.name === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(record.name)) return record.name;
  return null;
}
