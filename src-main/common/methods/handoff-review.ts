import { z } from 'zod';
import type { EvidenceFile, MergePreview } from '../handoff-dto';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';

/** A handoff's id as every handoff method takes it. */
export const handoffId = lazily(() => z.string().min(1).max(64).describe('the handoff id handoff_create returned (hf_…)'));

/**
 * What the review of a handoff's change reads besides the evidence: the merge preview, the change since the last
 * review, and one file at a commit of the review. Spread into HANDOFF_METHODS where they are listed.
 */
export const HANDOFF_REVIEW_METHODS = {
  handoff_preview: {
    description:
      "Whether a handoff's work would merge into its base branch now (git merge-tree; nothing is changed): how many commits the base moved since, " +
      'a fast-forward, a clean merge or the conflicting files, the tested-by runs (passed, failed, missing), and other live worktrees whose work touches the same lines. ' +
      'Worked out again when the base, the work or a neighbour moved; cheap to ask again.',
    capability: 'read',
    input: lazily(() => z.object({ handoffId: handoffId() }).strict()),
    mcpTool: true,
    readOnly: true,
  },
  handoff_since_review: {
    description:
      'For a handoff that goes on from a rejected one (continues): the change between the commit reviewed then and the one to review now, file by file (what changed since the last review).',
    capability: 'read',
    input: lazily(() => z.object({ handoffId: handoffId() }).strict()),
    mcpTool: false,
    readOnly: true,
  },
  handoff_file: {
    description:
      "One file of a handoff's change as git holds it at one of the commits its review is about (the base commit, the reviewed commit, or the one reviewed last time): " +
      'for the review to show the lines around a hunk. Text files up to 1 MiB.',
    capability: 'read',
    input: lazily(() =>
      z
        .object({
          handoffId: handoffId(),
          path: z.string().min(1).max(4096).describe("the file's path in the repository"),
          at: z.enum(['base', 'head', 'reviewed']).describe('base: the base commit; head: the commit under review; reviewed: the commit reviewed last time (a follow-up)'),
        })
        .strict(),
    ),
    mcpTool: false,
    readOnly: true,
  },
} satisfies Record<string, MethodSpec>;

export interface HandoffReviewOutputs {
  handoff_preview: { preview: MergePreview | null };
  handoff_file: { content: string | null; why?: string };
  handoff_since_review: { from: string; to: string; files: EvidenceFile[] } | { from: null; to: null; files: [] };
}
