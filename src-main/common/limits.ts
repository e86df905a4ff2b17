/**
 * Every tunable of the runner in one place. Doors and engine read these; tests inject smaller ones.
 */
export const LIMITS = {
  /** Default TCP port of the endpoint (`commonroom serve` and the app). 0 picks a free port. */
  defaultPort: 7391,
  /** Largest HTTP request body accepted on /mcp and /api, in bytes. */
  maxBodyBytes: 2 * 1024 * 1024,
  /** A request body must arrive within this long after its headers (a slow body would hold a socket forever). */
  bodyTimeoutMs: 30_000,
  /** A request's headers must arrive within this long. */
  headersTimeoutMs: 20_000,
  /**
   * Open HTTP connections. Every client is 127.0.0.1, so they are counted by who they turn out to be: a
   * connection that has not yet sent a valid token is one of at most `maxUnauthenticatedConnections` (past
   * it the one quiet longest is closed once it had a second to send its request; until then a new client is
   * let in over it, within `maxConnections`) and is closed after
   * `unauthenticatedIdleMs` without one; an authenticated one counts against its participant (an agent holds
   * at most `maxConnectionsPerParticipant`; the operator and the UI are not capped, and agents together leave
   * `reservedOperatorConnections` of `maxConnections` free for them).
   */
  maxConnections: 512,
  maxUnauthenticatedConnections: 64,
  unauthenticatedIdleMs: 5_000,
  maxConnectionsPerParticipant: 32,
  reservedOperatorConnections: 64,
  /** JSON nested deeper than this is refused before anything walks it. */
  maxJsonDepth: 64,
  /** Audit rows kept (newest first); older ones are dropped as new calls arrive. */
  auditRingSize: 10_000,
  /** Legacy (2025-era) MCP sessions open at once; the next initialize is refused until one ends. */
  maxLegacySessions: 64,
  /** … and per participant. */
  maxLegacySessionsPerParticipant: 16,
  /** A legacy session unused this long is closed. */
  legacySessionIdleMs: 10 * 60 * 1000,
  /** Replay buffer per legacy session (SSE resumability), in messages. */
  legacyReplayMessages: 256,
  /** Participant names: short and shell-friendly. */
  maxParticipantNameLength: 64,
  /** Live participants per room (revoked ones do not count). */
  maxParticipants: 256,
  /** 2025 tasks/result calls waiting at once (every session counts); the next is refused with a clear error. */
  maxTaskResultWaiters: 64,
  /** Tasks per tasks/list page. */
  taskListPage: 50,
  /** Shells alive at once per room. */
  maxShells: 32,
  /** …of which one agent may hold this many (the operator is not held to a share). */
  maxShellsPerAgent: 16,
  /** Ended shells kept readable (output, exit code) until closed; older ones are dropped. */
  keepEndedShells: 16,
  /**
   * Scrollback kept in memory per shell, in lines (as a terminal's history is) and, for lines of any length, in
   * bytes; older output is dropped (readers are told: `truncated`). It grows with the output up to these.
   */
  shellScrollbackLines: 10_000,
  shellScrollbackBytes: 2 * 1024 * 1024,
  /** Input accepted in one shell_io call. */
  shellMaxInputBytes: 64 * 1024,
  /** Output returned by one shell_io call (default: shellDefaultReadBytes). */
  shellMaxReadBytes: 1024 * 1024,
  shellDefaultReadBytes: 16 * 1024,
  /** A server-side wait never runs past this in a plain tool call (clients time out around 60 s). */
  shellMaxWaitMs: 45_000,
  shellDefaultWaitMs: 10_000,
  /** How much recent output a pattern wait looks at. */
  shellWaitWindowBytes: 256 * 1024,
  /** Grace after each signal when closing a shell's tree. */
  shellCloseGraceMs: 500,
  /**
   * Lines a shell's screen mirror (format "screen") keeps above the screen. Nothing reads them (screen reads,
   * status rules and key modes use the visible rows; scrollback is the byte ring's), and at 120 columns each
   * costs ~1.7 KiB of every shell: 200 of them were half of a shell's memory (npm run bench -- many-shells).
   */
  shellScreenScrollbackLines: 0,
  /**
   * How long shell_run waits for a new shell's first prompt mark before it falls back to the sentinel (a
   * user's rc that replaced the hooks), and how long after a run's end for the next prompt.
   */
  shellRunPromptWaitMs: 5_000,
  /**
   * Live viewers (the app's terminals): pause a viewer above HIGH unacknowledged bytes, resume below LOW. The
   * page parses what it holds in writes of up to 512 KiB, in a flood holding bytes back until a full write has
   * come, and acknowledges them when parsed: HIGH holds one write being parsed, one being gathered and the
   * next on its way, and with LOW at 3/4 of HIGH a refill starts as soon as one write is acknowledged (at
   * 64 KiB the page ran dry between refills; at 1 MiB a held write stalled the shell until the hold ran out).
   */
  viewerHighWatermark: 2 * 1024 * 1024,
  viewerLowWatermark: 1536 * 1024,
  /**
   * A viewer about to lose unread output from the ring holds the PTY back (nothing lost, VS Code style), but
   * only while it keeps acknowledging: one silent this long stops holding (it is told `truncated` instead).
   */
  viewerStallMs: 2_000,
  /** The event ring: the newest this many events of a room are kept, older ids are gone (room-wide). */
  eventRingSize: 2000,
  /** Most events one page of handoff_events / workspace_history returns. */
  maxEventPage: 200,
  /** Tasks `working` or `input_required` at once in one room (every kind of task counts). */
  maxActiveTasks: 32,
  /** …of which one agent's (handoffs it created, graphs it runs) this many. */
  maxActiveTasksPerAgent: 16,
  /** A handoff task's TTL: terminal rows go one TTL after their last update, live ones fail one TTL after creation. */
  handoffTaskTtlMs: 24 * 60 * 60 * 1000,
  /** How often clients are told to poll a handoff task. */
  handoffPollIntervalMs: 5000,
  /** How often the TTL sweeper looks for expired handoff tasks. */
  handoffSweepIntervalMs: 60 * 1000,
  /** Handoff texts, in characters; the result in bytes of UTF-8. */
  maxHandoffSummaryChars: 2000,
  maxHandoffConstraintsChars: 8000,
  maxHandoffResultBytes: 256 * 1024,
  /** Artifact references per handoff or result (stored, never fetched), and the length of each URI. */
  maxArtifactRefs: 32,
  maxArtifactUriLength: 2048,
  /** Input requests a task may wait on at once, and the text of each. */
  maxInputRequests: 16,
  maxInputMessageChars: 2000,
  /** Idempotency keys and reasons. */
  maxIdempotencyKeyLength: 128,
  maxReasonChars: 2000,
  /** Task graphs: stages per graph, stages running at once per graph, default parallelism. */
  maxGraphStages: 10_000,
  /** Dependencies one stage may list (what every graph could list before graphs grew past 256 stages). */
  maxStageDependencies: 256,
  maxGraphParallel: 64,
  defaultGraphParallel: 4,
  /** Graphs not yet ended per room; the next tasks_run is refused until one ends. */
  maxActiveGraphs: 16,
  /** …of which one agent's this many. */
  maxActiveGraphsPerAgent: 8,
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
  /**
   * Schedules: the scheduler looks at the clock at least this often (besides waking at each due time), so a
   * clock that jumps (a machine that slept) is noticed within it.
   */
  scheduleTickMs: 30_000,
  /** A due time the room reaches later than this (it was asleep or busy) counts as missed, and its catch-up policy applies. */
  scheduleLateMs: 120_000,
  /**
   * An agent that reads working while its terminal, its CPU and its process tree stay quiet this long reads
   * stalled (the room's default; agent_watch_defaults and each agent_start may set another).
   */
  agentStallMs: 10 * 60_000,
  /** How often the room looks at each agent it started for a stall, a usage limit and a due resume. */
  agentWatchTickMs: 5_000,
} as const;

export type Limits = { [K in keyof typeof LIMITS]: number };
