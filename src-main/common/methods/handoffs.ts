import { z } from 'zod';
import type { EventPage, HandoffView } from '../handoff-dto';
import { HANDOFF_STATUSES } from '../handoff-machine';
import { LIMITS } from '../limits';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';
import { cursorParam, limitParam } from '../paging';
import { utf8ByteLength } from '../text-size';
import { waitMsParam } from '../wait-param';
import { hostAlias } from './hosts';
import { participantName } from './participants';
import { HANDOFF_DECISION_METHODS, reason, type HandoffDecisionOutputs } from './handoff-decisions';
import { HANDOFF_REVIEW_METHODS, handoffId, type HandoffReviewOutputs } from './handoff-review';

const inputKey = lazily(() => z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'keys are 1-64 letters, digits, ".", "_" or "-"'));
const idempotencyKey = lazily(() =>
  z
    .string()
    .min(1)
    .max(LIMITS.maxIdempotencyKeyLength)
    .describe('repeating a call with the same key (same participant) returns the original handoff instead of a second one'),
);
const artifactRef = lazily(() =>
  z
    .object({
      uri: z
        .string()
        .min(1)
        .max(LIMITS.maxArtifactUriLength, `an artifact URI is at most ${LIMITS.maxArtifactUriLength} characters`)
        .describe('where it is: a file path, URL or commit'),
      name: z.string().min(1).max(256).optional().describe('a name for people'),
      mediaType: z.string().min(1).max(128).optional().describe('its media type, e.g. text/markdown'),
    })
    .strict(),
);
const artifacts = lazily(() =>
  z
    .array(artifactRef())
    .max(LIMITS.maxArtifactRefs, `at most ${LIMITS.maxArtifactRefs} artifact references: point at a folder or an index instead`)
    .describe('references to files, URLs or commits; stored as given, never fetched'),
);

/** A keyed map with a bounded number of entries (zod records have no size bound of their own). */
function keyedMap<V extends z.ZodType>(value: V, max: number, what: string) {
  return z
    .record(inputKey(), value)
    .refine((m) => Object.keys(m).length >= 1, `give at least one ${what}`)
    .refine((m) => Object.keys(m).length <= max, `at most ${max} ${what}s at once`);
}

const page = lazily(() => ({
  cursor: cursorParam('start from the oldest event kept').optional(),
  limit: limitParam(LIMITS.maxEventPage, 50, 'events').optional(),
}));

export const HANDOFF_METHODS = {
  handoff_create: {
    description:
      'Hand work to another participant (or to anyone, when "to" is omitted). Creates the handoff and its task (working). ' +
      'Repeating a call with the same idempotency_key returns the original handoff and task.',
    capability: 'write',
    input: lazily(() => z
      .object({
        summary: z
          .string()
          .min(1)
          .max(LIMITS.maxHandoffSummaryChars, `a summary is at most ${LIMITS.maxHandoffSummaryChars} characters: put the detail in constraints or an artifact`)
          .describe('what to do, in a sentence or two'),
        to: participantName().optional().describe('the participant who should do it; omit to let anyone accept it'),
        constraints: z
          .string()
          .max(LIMITS.maxHandoffConstraintsChars, `constraints are at most ${LIMITS.maxHandoffConstraintsChars} characters: move the rest into an artifact`)
          .optional()
          .describe('limits and details the work must respect'),
        artifacts: artifacts().optional(),
        workspace: z
          .object({
            repo: z.string().min(1).max(4096).describe('a git repository on this machine (a folder in it): the work gets a worktree of its own'),
            base: z.string().min(1).max(255).optional().describe('the branch, tag or commit the work starts from (default: the branch checked out there); approval can merge into it when it is a branch'),
            host: hostAlias()
              .optional()
              .describe("make the worktree on this host of the room (an SSH alias the person added), in its own clone hostRepo; the review fetches the work into repo here, and approval merges it here"),
            hostRepo: z.string().min(1).max(4096).optional().describe("with host: the absolute path of the host's own clone of the repository, which has the base commit"),
          })
          .strict()
          .refine((w) => (w.host === undefined) === (w.hostRepo === undefined), { message: "give host and hostRepo together: the host, and the path of the repository's clone on it", path: ['hostRepo'] })
          .optional()
          .describe('a git worktree for the work, made when the handoff is accepted (branch commonroom/<handoff id>); its diff and test runs are captured when it is completed'),
        continues: handoffId()
          .optional()
          .describe("a rejected handoff whose workspace this one goes on in (same worktree and branch); the assignee sees why it was rejected"),
        idempotency_key: idempotencyKey().optional(),
        idempotencyKey: idempotencyKey().optional().describe('the same as idempotency_key (either spelling; both must agree if both are given)'),
      })
      .strict()
      .refine((v) => v.idempotency_key === undefined || v.idempotencyKey === undefined || v.idempotency_key === v.idempotencyKey, {
        message: 'idempotency_key and idempotencyKey are two spellings of one key and differ here: send only one of them',
        path: ['idempotencyKey'],
      })
      .refine((v) => v.workspace === undefined || v.continues === undefined, {
        message: 'continues goes on in the rejected handoff\'s own workspace: give workspace or continues, not both',
        path: ['continues'],
      })),
    mcpTool: true,
    // MCP Tasks clients may get the handoff's task back instead of the handoff
    task: { support: 'optional', taskIdOf: (output) => (output as { handoff: { taskId: string } }).handoff.taskId },
  },
  handoff_accept: {
    description: 'Accept an open handoff addressed to you (or to anyone). You become its assignee; its task stays working.',
    capability: 'write',
    input: lazily(() => z.object({ handoffId: handoffId() }).strict()),
    mcpTool: true,
  },
  handoff_request_input: {
    description:
      'As the assignee, ask for input before you can finish (e.g. a question for the person). The task becomes input_required ' +
      'until every keyed request is answered with handoff_answer_input.',
    capability: 'write',
    input: lazily(() => z
      .object({
        handoffId: handoffId(),
        requests: keyedMap(
          z
            .object({
              message: z.string().min(1).max(LIMITS.maxInputMessageChars).describe('the question, for the person who answers'),
              requestedSchema: z
                .record(z.string(), z.unknown())
                .refine((s) => JSON.stringify(s).length <= 16_384, 'a requestedSchema is at most 16 KiB of JSON')
                .optional()
                .describe('JSON Schema of the answer (an elicitation form); default: one string field "answer"'),
            })
            .strict(),
          LIMITS.maxInputRequests,
          'input request',
        ).describe('the questions, by a key of your choice: {key: {message, requestedSchema?}}'),
      })
      .strict()),
    mcpTool: true,
  },
  handoff_answer_input: {
    description: "Answer a handoff's outstanding input requests by key (the handoff's owner, or a participant who can approve).",
    capability: 'write',
    input: lazily(() => z
      .object({
        handoffId: handoffId(),
        answers: keyedMap(
          z
            .object({
              action: z.enum(['accept', 'decline', 'cancel']).describe('accept (with content), decline or cancel'),
              content: z
                .record(z.string(), z.unknown())
                .refine((c) => JSON.stringify(c).length <= 65_536, 'an answer is at most 64 KiB of JSON')
                .optional()
                .describe('with accept: the answer, matching the request\'s requestedSchema'),
            })
            .strict(),
          LIMITS.maxInputRequests,
          'answer',
        ).describe('the answers, by the keys of the requests: {key: {action, content?}}'),
      })
      .strict()),
    mcpTool: true,
  },
  handoff_complete: {
    description: 'As the assignee, finish the work with a result. The task completes and the handoff waits for approval (result_ready).',
    capability: 'write',
    input: lazily(() => z
      .object({
        handoffId: handoffId(),
        result: z
          .string()
          .max(LIMITS.maxHandoffResultBytes, `a result is at most ${LIMITS.maxHandoffResultBytes} bytes: put the rest in an artifact and reference it`)
          .refine(
            (text) => utf8ByteLength(text) <= LIMITS.maxHandoffResultBytes,
            `a result is at most ${LIMITS.maxHandoffResultBytes} bytes of UTF-8: put the rest in an artifact and reference it`,
          )
          .describe('the result, as markdown'),
        artifacts: artifacts().optional(),
      })
      .strict()),
    mcpTool: true,
  },
  handoff_get: {
    description: 'Read a handoff and its task: the authority on where the work stands. ' +
      `To wait for it instead of polling: waitMs (at most ${LIMITS.maxStatusWaitMs} ms) answers as soon as the handoff or its task changes; ` +
      'with until, only once it reaches that status (or "ended": approved, rejected or cancelled), or can no longer reach it. Call again to wait longer.',
    capability: 'read',
    input: lazily(() => z
      .object({
        handoffId: handoffId(),
        waitMs: waitMsParam('the handoff or its task changes').optional(),
        until: z
          .enum(['change', 'ended', ...HANDOFF_STATUSES])
          .optional()
          .describe('with waitMs: what the wait is for: "change" (the default) any change; "ended" approved, rejected or cancelled; a status: that status (or an end that rules it out)'),
      })
      .strict()),
    mcpTool: true,
    readOnly: true,
  },
  handoff_list: {
    description: 'List the handoffs you have a part in (all of them, if you can approve), newest first; open ones addressed to anyone included. ' +
      'Paged: pass the nextCursor of one page as cursor for the next (null: that was the last page).',
    capability: 'read',
    input: lazily(() => z
      .object({
        status: z.enum(HANDOFF_STATUSES).optional().describe('only handoffs in this status'),
        cursor: cursorParam('start from the newest handoff').optional(),
        limit: limitParam(200, 50, 'handoffs').optional(),
      })
      .strict()),
    mcpTool: true,
    readOnly: true,
  },
  handoff_events: {
    description: "A handoff's events after an event id, oldest first, paged. Read these after a gap; the live stream is not a cursor.",
    capability: 'read',
    input: lazily(() => z.object({ handoffId: handoffId(), ...page() }).strict()),
    mcpTool: true,
    readOnly: true,
  },
  ...HANDOFF_DECISION_METHODS,
  ...HANDOFF_REVIEW_METHODS,
  handoff_cancel: {
    description: 'Cancel a handoff before it has a result (its owner, or a participant who can approve). Its task becomes cancelled.',
    capability: 'write',
    input: lazily(() => z.object({ handoffId: handoffId(), reason: reason().optional() }).strict()),
    mcpTool: true,
  },
  workspace_history: {
    description: "The room's events after an event id, oldest first, paged (handoff events only for handoffs you may see).",
    capability: 'read',
    input: lazily(() => z.object(page()).strict()),
    mcpTool: true,
    readOnly: true,
  },
} satisfies Record<string, MethodSpec>;

export interface HandoffOutputs extends HandoffReviewOutputs, HandoffDecisionOutputs {
  handoff_create: { handoff: HandoffView; created: boolean };
  handoff_accept: { handoff: HandoffView };
  handoff_request_input: { handoff: HandoffView };
  handoff_answer_input: { handoff: HandoffView };
  handoff_complete: { handoff: HandoffView };
  handoff_get: { handoff: HandoffView; waitedMs?: number };
  handoff_list: { handoffs: HandoffView[]; nextCursor: string | null };
  handoff_events: EventPage;
  handoff_cancel: { handoff: HandoffView };
  workspace_history: EventPage;
}
