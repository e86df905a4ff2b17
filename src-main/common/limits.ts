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
} as const;

export type Limits = { [K in keyof typeof LIMITS]: number };
