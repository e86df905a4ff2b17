import { z } from 'zod';
import type { EvidenceFile, EvidenceSummary, HandoffView } from '../handoff-dto';
import { LIMITS } from '../limits';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';
import { cursorParam, limitParam } from '../paging';
import { handoffId } from './handoff-review';

/** Why an approval, rejection or cancellation was made (kept with it). */
export const reason = lazily(() =>
  z
    .string()
    .min(1)
    .max(LIMITS.maxReasonChars, `a reason is at most ${LIMITS.maxReasonChars} characters`)
    .describe('why, in a sentence for the people involved'),
);

/**
 * The person's decision on a handoff's result and what it is made on: approve (and merge the reviewed commit),
 * the evidence captured at completion (and captured again), reject (with line comments, or sent back). Spread
 * into HANDOFF_METHODS where they are listed.
 */
export const HANDOFF_DECISION_METHODS = {
  handoff_approve: {
    description: 'Approve the result of a handoff in result_ready (needs the approve capability). The task is left as it is.',
    capability: 'approve',
    input: lazily(() => z
      .object({
        handoffId: handoffId(),
        reason: reason().optional(),
        merge: z
          .boolean()
          .optional()
          .describe(
            "with a workspace: also merge the reviewed commit (the evidence's head, by its id: never what the branch holds now) into the base branch (a fast-forward, or a merge commit naming the handoff); " +
              'a branch that moved after completion, a conflict, or a file of yours in the way changes nothing and the handoff stays result_ready',
          ),
        commit: z
          .string()
          .regex(/^[0-9a-fA-F]{7,64}$/, 'a commit id (7 to 64 hex digits)')
          .optional()
          .describe('with merge: the commit you reviewed (the evidence\'s head, or its first 7+ digits); refused if the evidence now shows another'),
      })
      .strict()),
    mcpTool: true,
  },
  handoff_recapture: {
    description:
      "Capture a completed handoff's worktree again (its owner, or who may approve; the assignee's work ended at completion): the evidence is replaced by what the worktree holds now, " +
      'and an event records the old and new head. Use it when approve-and-merge refuses because the branch moved after completion, then review the new evidence.',
    capability: 'write',
    input: lazily(() => z.object({ handoffId: handoffId() }).strict()),
    mcpTool: true,
  },
  handoff_evidence: {
    description:
      "What a handoff's workspace changed, as captured when it was completed: its commits, uncommitted files, test runs (failed stages with their logs) and, " +
      'a page at a time, each file with its counts and its patch (from git; capped per file and in total, marked cut). ' +
      'Paged: pass nextCursor as cursor (null: that was the last page).',
    capability: 'read',
    input: lazily(() => z
      .object({
        handoffId: handoffId(),
        cursor: cursorParam('start from the first file').optional(),
        limit: limitParam(200, 50, 'files').optional(),
        patches: z.boolean().optional().describe('false: the files without their patch text (default true)'),
      })
      .strict()),
    mcpTool: true,
    readOnly: true,
  },
  handoff_reject: {
    description: 'Reject the result of a handoff in result_ready, saying why (needs the approve capability). The task is left as it is.',
    capability: 'approve',
    input: lazily(() =>
      z
        .object({
          handoffId: handoffId(),
          reason: reason(),
          comments: z
            .array(
              z
                .object({
                  path: z.string().min(1).max(4096).describe("a file of the handoff's diff"),
                  line: z.number().int().min(1).max(10_000_000).describe('its line number (in the new file; with side "old", in the old one)'),
                  side: z.enum(['new', 'old']).optional().describe('new (default): a line of the new file; old: a removed line'),
                  text: z.string().min(1).max(LIMITS.maxReasonChars, `a comment is at most ${LIMITS.maxReasonChars} characters`).describe('the comment'),
                })
                .strict(),
            )
            .max(100, 'at most 100 comments')
            .optional()
            .describe('comments on lines of the diff (request changes): kept with the decision, shown to the agent in its handoff and typed into its terminal when the room started it'),
          again: z.boolean().optional().describe('send it back: a follow-up handoff to the same assignee goes on in the same worktree, carrying the reason and comments'),
        })
        .strict(),
    ),
    mcpTool: true,
  },
} satisfies Record<string, MethodSpec>;

export interface HandoffDecisionOutputs {
  handoff_approve: { handoff: HandoffView; merged?: { into: string; commit: string; fastForward: boolean } };
  handoff_evidence: { evidence: EvidenceSummary | null; files: EvidenceFile[]; nextCursor: string | null };
  handoff_recapture: { handoff: HandoffView };
  handoff_reject: { handoff: HandoffView; followUp?: HandoffView; typedInto?: number };
}
