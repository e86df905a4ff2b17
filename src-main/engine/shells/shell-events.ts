import type { EngineContext, EventRule } from '../room/index';
import type { PtyShell } from './pty-shell';

/**
 * Activity's record of a shell's life: opened (by whom, what, where) and ended (its exit, and who closed it,
 * if someone did). Two events per shell, bounded by the room's shell limit: the bytes stay off the event
 * ring (volatile, high-volume); the fact that a shell was there, and when, is history a person asks about.
 */
export function recordShellLife(ctx: EngineContext, session: PtyShell, closedBy: () => string | null): void {
  const { id, name, owner, cwd } = session.spec;
  const agent = session.spec.agent?.client ?? null;
  const record = (kind: string, actor: string, data: Record<string, unknown>) => {
    try {
      ctx.commit(() => ({ value: undefined, events: [{ kind, actor, subject: id, data: { name, owner, ...data } }] }));
    } catch {
      // the room closed with its runner (its shells end with it): nothing is left to record into
    }
  };
  record('shell.opened', owner, { cwd, agent });
  void session.waitExit().then((exit) => {
    const by = closedBy();
    record('shell.ended', by ?? owner, { exitCode: exit.exitCode, signal: exit.signal, closed: by !== null });
  });
}

/** A shell's events are read by its owner, and by those who operate the room. */
export const SHELL_EVENTS: EventRule = { prefix: 'shell.', visible: "@operate = 1 OR json_extract(e.data, '$.owner') = @me" };
