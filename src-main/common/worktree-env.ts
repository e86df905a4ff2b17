/** Where the worktrees' port blocks start, how many ports each gets, and how many blocks there are (20000–51999). */
export const PORT_BLOCK = { first: 20_000, size: 64, count: 500 } as const;

/**
 * The values a worktree's programs get so that parallel copies of one project do not collide: a block of ports
 * of its own (COMMONROOM_PORT_BASE, COMMONROOM_PORT_COUNT, and PORT, its first), and the handoff it belongs to
 * (COMMONROOM_WORKTREE, a name for per-copy databases, caches or containers). The same handoff always gets the
 * same block (derived from its id: its agent, its shells and a restart agree without storing it); two live
 * worktrees share a block about once in 500 pairs, which the review states beside the values.
 */
export function worktreeEnv(handoffId: string): Record<string, string> {
  const n = fnv1a(handoffId) % PORT_BLOCK.count;
  const base = PORT_BLOCK.first + n * PORT_BLOCK.size;
  return { COMMONROOM_PORT_BASE: String(base), COMMONROOM_PORT_COUNT: String(PORT_BLOCK.size), PORT: String(base), COMMONROOM_WORKTREE: handoffId };
}

/** The same values in words, for the agent's first prompt and the review. */
export function worktreeEnvText(handoffId: string): string {
  const env = worktreeEnv(handoffId);
  const base = Number(env.COMMONROOM_PORT_BASE);
  return `ports ${base}–${base + PORT_BLOCK.size - 1} are this worktree's own (PORT=${base}, COMMONROOM_PORT_BASE=${base}, COMMONROOM_PORT_COUNT=${PORT_BLOCK.size}; COMMONROOM_WORKTREE=${handoffId})`;
}

/** FNV-1a over the id's UTF-16 code units: a spread of blocks that any door (and the renderer) computes alike. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
