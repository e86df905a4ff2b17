import type { MethodName } from '../common/contract';
import type { Caller } from '../common/dto';
import { toPublicError } from '../common/errors';
import type { Feature } from './feature';
import type { AuditRepo } from './store/audit';
import { decodeCursor, encodeCursor, numberAt } from './paging';

/** audit_list: the audit ring, newest first, for operators. */
export function auditFeature(audit: AuditRepo): Feature<'audit_list'> {
  return {
    name: 'audit',
    handlers: {
      audit_list: (_caller, input) => {
        const restart = 'start from the newest entry';
        const before = input.cursor === undefined ? null : numberAt(decodeCursor(input.cursor, 'audit', '', restart), 0, restart);
        const page = audit.page(before, input.limit ?? 100);
        const last = page.entries.at(-1);
        return { entries: page.entries, nextCursor: page.more && last ? encodeCursor('audit', '', [last.id]) : null };
      },
    },
  };
}

/** Records one call in the audit ring; a failure to record is reported on one line and never fails the call. */
export function recordCall(audit: AuditRepo, at: string, caller: Caller, method: MethodName, startedMs: number, error: unknown): void {
  try {
    audit.append({
      at,
      participant: caller.name,
      method,
      outcome: error === undefined ? 'ok' : toPublicError(error).code,
      durationMs: Math.max(0, Math.round(performance.now() - startedMs)),
    });
  } catch (failure) {
    console.error(`[audit] could not record ${method} by ${caller.name}: ${failure instanceof Error ? failure.message : 'unknown'}`);
  }
}
