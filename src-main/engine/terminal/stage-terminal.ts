import type { Terminal } from './pty';

/**
 * A `tty: true` stage runs in a PTY and its output goes to the stage log; it is also a live shell the person
 * can watch and type into: the engine gives the graphs runtime a host (the shell registry) that is handed each
 * tty stage's terminal when its attempt starts. The graphs runtime owns the terminal (its lifetime is the
 * stage's); the host only watches it and types into it. This lives beside the terminal, not in graphs/ or
 * shells/, so neither of those imports the other.
 */
export interface StageTerminal {
  /** `<graphId>:<stageId>`, the stage's task id, plus the attempt number. */
  taskId: string;
  attempt: number;
  /** Who submitted the graph: the owner of the stage's shell. */
  owner: string;
  /** The attempt's PTY: the same raw bytes the stage log gets. */
  terminal: Terminal;
}

export interface StageTerminalHost {
  attach(stage: StageTerminal): void;
}
