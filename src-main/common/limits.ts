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
  /** Shells alive at once per room. */
  maxShells: 32,
  /** Scrollback kept in memory per shell; older output is dropped (readers are told: `truncated`). */
  shellScrollbackBytes: 2 * 1024 * 1024,
  /** Input accepted in one shell_io call. */
  shellMaxInputBytes: 64 * 1024,
  /** Output returned by one shell_io call (default: shellDefaultReadBytes). */
  shellMaxReadBytes: 256 * 1024,
  shellDefaultReadBytes: 16 * 1024,
  /** A server-side wait never runs past this in a plain tool call (clients time out around 60 s). */
  shellMaxWaitMs: 45_000,
  shellDefaultWaitMs: 10_000,
  /** How much recent output a pattern wait looks at. */
  shellWaitWindowBytes: 256 * 1024,
  /** Grace after each signal when closing a shell's tree. */
  shellCloseGraceMs: 500,
  /** Live viewers (the app's terminals): pause a viewer above HIGH unacknowledged bytes, resume below LOW. */
  viewerHighWatermark: 512 * 1024,
  viewerLowWatermark: 64 * 1024,
} as const;

export type Limits = { [K in keyof typeof LIMITS]: number };
