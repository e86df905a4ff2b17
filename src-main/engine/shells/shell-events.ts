import type { EngineContext, EventRule } from '../room/index';
import type { PtyShell } from './pty-shell';

/**
 * Activity's record of a shell's life: opened (by whom, what, where) and ended (its exit, and who closed it,
 * if someone did). Two events per shell, bounded by the room's shell limit: the bytes stay off the event
 * ring (volatile, high-volume); the fact that a shell was there, and when, is history a person asks about.
 */
export function recordShellOpened(ctx: EngineContext, session: PtyShell): void {
  record(ctx, session, 'shell.opened', session.spec.owner, { cwd: session.spec.cwd, agent: session.spec.agent?.client ?? null });
}

/** Its end: its exit, and `closedBy` (who closed it), null when it ended by itself. */
export function recordShellEnded(ctx: EngineContext, session: PtyShell, closedBy: string | null): void {
  const exit = session.exit ?? { exitCode: null, signal: null };
  record(ctx, session, 'shell.ended', closedBy ?? session.spec.owner, { exitCode: exit.exitCode, signal: exit.signal, closed: closedBy !== null });
}

function record(ctx: EngineContext, session: PtyShell, kind: string, actor: string, data: Record<string, unknown>): void {
  const { id, name, owner } = session.spec;
  try {
    ctx.commit(() => ({ value: undefined, events: [{ kind, actor, subject: id, data: { name, owner, ...data } }] }));
  } catch {
    // the room closed with its runner (its shells end with it): nothing is left to record into
  }
}

/** A shell's events are read by its owner, and by those who operate the room. */
export const SHELL_EVENTS: EventRule = { prefix: 'shell.', visible: "@operate = 1 OR json_extract(e.data, '$.owner') = @me" };
