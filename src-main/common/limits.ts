/**
 * Every tunable of the runner in one place. Doors and engine read these; tests inject smaller ones.
 */
export const LIMITS = {
  /** Default TCP port of the endpoint (`commonroom serve` and the app). 0 picks a free port. */
  defaultPort: 7391,
  /** Largest HTTP request body accepted on /mcp and /api, in bytes. */
  maxBodyBytes: 2 * 1024 * 1024,
  /** Legacy (2025-era) MCP sessions open at once; the next initialize is refused until one ends. */
  maxLegacySessions: 64,
  /** A legacy session unused this long is closed. */
  legacySessionIdleMs: 30 * 60 * 1000,
  /** Replay buffer per legacy session (SSE resumability), in messages. */
  legacyReplayMessages: 256,
  /** Participant names: short and shell-friendly. */
  maxParticipantNameLength: 64,
  /** Live participants per room (revoked ones do not count). */
  maxParticipants: 256,
  /** Task graphs: stages per graph, stages running at once per graph, default parallelism. */
  maxGraphStages: 256,
  maxGraphParallel: 64,
  defaultGraphParallel: 4,
  /** Graphs not yet ended per room; the next tasks_run is refused until one ends. */
  maxActiveGraphs: 16,
  /** Longest command string (or argv element), readiness regex, stage timeout, retries, retry backoff. */
  maxCommandLength: 16_384,
  maxReadinessPatternLength: 256,
  maxStageTimeoutMs: 7 * 24 * 60 * 60 * 1000,
  maxStageRetries: 10,
  maxRetryBackoffMs: 10 * 60 * 1000,
  defaultRetryBackoffMs: 1000,
  /** Default grace between SIGINT, SIGTERM and SIGKILL for cancel and timeout (GitHub Actions uses 7.5 s / 2.5 s). */
  defaultKillGraceMs: 5000,
  /** Default wait for a readiness condition before the stage fails with TIMEOUT. */
  defaultReadinessTimeoutMs: 120_000,
  /** Per-stage log file cap: later output is dropped (a note says so). */
  maxStageLogBytes: 8 * 1024 * 1024,
  /** Largest log slice one tasks_status call returns. */
  maxLogReadBytes: 64 * 1024,
  defaultLogReadBytes: 16 * 1024,
  /** Ended graphs' logs are spooled (compressed into the artifact store) this long after they end, or when the room closes. */
  graphLogRetentionMs: 60 * 60 * 1000,
  /** Longest wait of one tasks_status call (well under the ~50 s some clients give a tool call). */
  maxStatusWaitMs: 25_000,
  /** Graphs per tasks_list page. */
  maxGraphListPage: 100,
} as const;

export type Limits = { [K in keyof typeof LIMITS]: number };
