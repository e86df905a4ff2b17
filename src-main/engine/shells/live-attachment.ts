import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { Limits } from '../../common/limits';
import { TERMINAL_BOUNDS } from '../../common/methods/shells';
import type { PtyShell, ShellViewer } from './pty-shell';

/**
 * A viewer's own watermarks (bytes sent and not yet acknowledged), instead of the app's: a room node's stream
 * to the room that mirrors its shell keeps less in flight than the room's hold margin (server/node-streams.ts).
 */
export interface Watermarks {
  high: number;
  low: number;
  /** What is unacknowledged may be asked for again (the link dropped): the PTY is held for it too. */
  resends?: boolean;
}

/** A person's live view of a shell, independent of transport (IPC or WebSocket). */
export interface ShellAttachment {
  /** The viewer processed this many bytes: lets the stream go on past the high watermark. */
  ack(bytes: number): void;
  /** Types into the shell, checked as shell_io checks its input (refused with a RoomError, nothing sent). */
  write(text: string): void;
  /**
   * This view's size: the PTY's when the view drives the shell (it drove, or nobody did and the shell is the
   * person's own, or `take`: the person hands driving to this view). Returns whether it drives; a view that does
   * not shows the PTY at the driver's size (shell-session.ts viewerResize).
   */
  resize(cols: number, rows: number, take?: boolean): boolean;
  detach(): void;
}

function describeExit(exit: { exitCode: number | null; signal: string | null } | null): string {
  if (!exit) return 'running';
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.exitCode}`;
}

/** Why input to an ended shell is refused, the same for shell_io and a live view. */
export function exitedRefusal(session: PtyShell): RoomError {
  return new RoomError('CONFLICT', `shell ${session.id} has exited (${describeExit(session.exit)}): its output can still be read; open a new shell to run more`);
}

/** Input larger than one call or keystroke batch may carry. */
export function checkInputSize(bytes: string, limits: Pick<Limits, 'shellMaxInputBytes'>): void {
  if (Buffer.byteLength(bytes) > limits.shellMaxInputBytes) {
    throw new RoomError('LIMIT_EXCEEDED', `input is larger than ${limits.shellMaxInputBytes} bytes: send it in smaller pieces`);
  }
}

function checkSize(cols: number, rows: number): void {
  const fits = (n: number, b: { min: number; max: number }) => Number.isInteger(n) && n >= b.min && n <= b.max;
  if (!fits(cols, TERMINAL_BOUNDS.cols) || !fits(rows, TERMINAL_BOUNDS.rows)) {
    const { cols: c, rows: r } = TERMINAL_BOUNDS;
    throw new RoomError('INVALID_INPUT', `a terminal is ${c.min}-${c.max} columns by ${r.min}-${r.max} rows; ${cols}x${rows} is not`);
  }
}

/** Attaches a viewer to one session: output paced by acks, typing and resizing checked before they reach the PTY. */
export function attachViewer(session: PtyShell, caller: Caller, viewer: ShellViewer, from: number, limits: Limits, now: () => string, watermarks?: Watermarks): ShellAttachment {
  const state = session.attach(viewer, from, watermarks?.high ?? limits.viewerHighWatermark, watermarks?.low ?? limits.viewerLowWatermark, watermarks?.resends);
  return {
    ack: (bytes) => session.ack(state, bytes),
    write: (text) => {
      checkInputSize(text, limits);
      if (!session.alive) throw exitedRefusal(session);
      if (text.length > 0) session.write(text, caller.name, now());
    },
    resize: (cols, rows, take = false) => {
      checkSize(cols, rows);
      if (!session.alive) throw exitedRefusal(session);
      // the person's own shell, and an agent the room started (agent_start is the person's), are theirs to size
      // without asking when no other view drives them
      const mayClaim = caller.name === session.spec.owner || session.spec.agent !== undefined;
      return session.viewerResize(state, cols, rows, { take, mayClaim });
    },
    detach: () => session.detach(state),
  };
}
