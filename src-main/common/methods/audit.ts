import { z } from 'zod';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';
import { cursorParam, limitParam } from '../paging';

/** One audited call: who, which method, when, the outcome ("ok" or the error code) and its duration. Never arguments. */
export interface AuditEntry {
  id: number;
  at: string;
  participant: string;
  method: string;
  outcome: string;
  durationMs: number;
  /** What it was about: the shell, graph, handoff or task id it named, or a participant's name; else null. */
  target: string | null;
}

export const AUDIT_METHODS = {
  audit_list: {
    description:
      'The audit log, newest first: every call to the runner (who, method, when, outcome or error code, duration; never ' +
      'arguments). Paged: pass the nextCursor of one page as cursor to get the next. Needs the operate capability.',
    capability: 'operate',
    input: lazily(() =>
      z
        .object({
          participant: z.string().min(1).max(64).optional().describe("only this participant's calls"),
          cursor: cursorParam('start from the newest entry').optional(),
          limit: limitParam(500, 100, 'entries').optional(),
        })
        .strict(),
    ),
    mcpTool: true,
  },
} satisfies Record<string, MethodSpec>;

export interface AuditOutputs {
  audit_list: { entries: AuditEntry[]; nextCursor: string | null };
}
