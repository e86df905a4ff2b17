import { z } from 'zod';
import { agentPatternProblem } from '../safe-pattern';
import { LIMITS } from '../limits';
import { lazily } from '../lazily';
import { hostAlias } from '../methods/hosts';

/**
 * The wire shape of a task graph, bounded in every dimension: an agent with `write` may submit one, and each
 * stage becomes a process on the person's machine. Structural rules a schema cannot express (cycles, unknown
 * or duplicate ids) are in graph-validate.ts.
 */

export const STAGE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const stageId = lazily(() =>
  z
    .string()
    .regex(STAGE_ID_PATTERN, 'a stage id is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit')
    .describe('a stage id: 1-64 letters, digits, ".", "_" or "-"'),
);

const envName = lazily(() =>
  z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'an environment variable name is letters, digits and "_", not starting with a digit')
    .refine((k) => !k.toUpperCase().startsWith('COMMONROOM_'), 'COMMONROOM_* variables belong to the runner: choose another name'),
);

const readiness = lazily(() =>
  z
    .object({
      /** Ready once a line of the stage's output matches this regular expression. */
      log: z.string().min(1).max(LIMITS.maxReadinessPatternLength).optional().describe("ready once a line of the stage's output matches this regular expression"),
      /** Ready once a TCP connection to this port (on loopback) succeeds. */
      port: z.number().int().min(1).max(65535).optional().describe('ready once a TCP connection to this port (on loopback) succeeds'),
      host: z.enum(['127.0.0.1', '::1', 'localhost']).optional().describe('with port: the loopback address to try (default 127.0.0.1)'),
      /** Ready once a GET of this URL answers with a status below 400. */
      url: z
        .string()
        .max(2048)
        .regex(/^https?:\/\/[^\s]+$/, 'readiness.url must be an http:// or https:// URL')
        .optional()
        .describe('ready once a GET of this URL answers with a status below 400'),
      /** Give up (the stage fails with TIMEOUT) when not ready this long after it started. */
      timeoutMs: z.number().int().min(100).max(LIMITS.maxStageTimeoutMs).optional().describe('give up (the stage fails with TIMEOUT) when not ready this long after it started'),
    })
    .strict()
    .refine((r) => [r.log, r.port, r.url].filter((v) => v !== undefined).length === 1, {
      message: 'readiness takes exactly one of log (a regex), port (a TCP port) or url',
    })
    .superRefine((r, ctx) => {
      const problem = r.log === undefined ? null : agentPatternProblem(r.log);
      if (problem) ctx.addIssue({ code: 'custom', message: `readiness.log: ${problem}`, path: ['log'] });
    })
    .refine((r) => r.host === undefined || r.port !== undefined, { message: 'readiness.host goes with readiness.port' })
    .describe('for a long-running stage: when dependents may start (exactly one of log, port or url)'),
);

export const stageSpec = lazily(() =>
  z
    .object({
      id: stageId(),
      /** An argv array (run directly, no shell) or a shell string (run by /bin/sh -c; by cmd.exe /d /s /c on Windows). */
      command: z.union([
        z.string().min(1, 'command is empty').max(LIMITS.maxCommandLength),
        z.array(z.string().max(LIMITS.maxCommandLength)).min(1, 'command needs at least the program').max(256),
      ]).describe('an argv array (run directly, no shell) or a shell string (run by /bin/sh -c)'),
      /** Working folder; relative paths are taken from the room's folder. Default: the room's folder. */
      cwd: z.string().min(1).max(4096).optional().describe("working folder; relative paths are taken from the room's folder (the default)"),
      env: z
        .record(envName(), z.string().max(8192))
        .refine((e) => Object.keys(e).length <= 64, 'env may set at most 64 variables')
        .optional()
        .describe('environment variables to set (at most 64)'),
      dependsOn: z.array(stageId()).max(LIMITS.maxStageDependencies, `a stage may depend on at most ${LIMITS.maxStageDependencies} stages: put a joining stage between`).optional().describe('ids of the stages that must complete (or be ready) before this one starts'),
      /** Each attempt is ended (SIGINT, SIGTERM, SIGKILL) after this long and fails with TIMEOUT. */
      timeoutMs: z.number().int().min(100).max(LIMITS.maxStageTimeoutMs).optional().describe('each attempt is ended after this long and fails with TIMEOUT'),
      /** Extra attempts after a failure (not after a cancel). */
      retries: z.number().int().min(0).max(LIMITS.maxStageRetries).optional().describe('extra attempts after a failure (not after a cancel)'),
      /** Wait before the first retry; doubles for each next one, capped. */
      retryBackoffMs: z.number().int().min(0).max(LIMITS.maxRetryBackoffMs).optional().describe('wait before the first retry; doubles for each next one, capped'),
      /** Grace between SIGINT, SIGTERM and SIGKILL when the stage is cancelled or times out. */
      killGraceMs: z.number().int().min(0).max(60_000).optional().describe('grace between SIGINT, SIGTERM and SIGKILL when the stage is cancelled or times out'),
      /** Run in a pseudo-terminal (for programs that need one). */
      tty: z.boolean().optional().describe('run in a pseudo-terminal (for programs that need one); it shows in shell_list'),
      readiness: readiness().optional(),
      /** Run on this host of the room (an SSH alias the person added); default: the graph's host, else this machine. */
      host: hostAlias().optional().describe("run this stage on this host of the room (an SSH alias the person added); default: the graph's host, else this machine"),
    })
    .strict(),
);

export const FAILURE_POLICIES = ['skip-dependents', 'cancel-all'] as const;
export type FailurePolicy = (typeof FAILURE_POLICIES)[number];

export const graphSpec = lazily(() =>
  z
    .object({
      name: z.string().min(1).max(120).optional().describe('a name for people reading the list'),
      /** Run in a handoff's workspace: stages' cwd are taken from its worktree, and the run is part of its evidence. */
      handoffId: z.string().min(1).max(64).optional().describe("run in this handoff's workspace (its git worktree; cwd is relative to it): the run is listed in the handoff's evidence"),
      /** Where its stages run unless a stage names its own host: a host of the room (an SSH alias), else this machine. */
      host: hostAlias().optional().describe("run every stage on this host of the room (an SSH alias the person added) unless the stage names its own; default: this machine"),
      /** Stages running at once (a ready long-running stage no longer takes a slot). */
      maxParallel: z.number().int().min(1).max(LIMITS.maxGraphParallel).optional().describe('stages running at once'),
      /** skip-dependents (default): a failure skips what depends on it, the rest goes on. cancel-all: a failure cancels the rest. */
      onFailure: z.enum(FAILURE_POLICIES).optional().describe('skip-dependents (default): a failure skips what depends on it; cancel-all: a failure cancels the rest'),
      stages: z
        .array(stageSpec())
        .min(1, 'a graph needs at least one stage')
        .max(LIMITS.maxGraphStages, `a graph may have at most ${LIMITS.maxGraphStages} stages: split it into several graphs`)
        .describe('the stages: {id, command, dependsOn?, …}'),
    })
    .strict(),
);

export type StageSpec = z.infer<ReturnType<typeof stageSpec>>;
export type GraphSpec = z.infer<ReturnType<typeof graphSpec>>;
export type Readiness = NonNullable<StageSpec['readiness']>;
