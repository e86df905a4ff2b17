/**
 * SEAM for the shells engine (issue: PTY shells). A `tty: true` stage runs in a PTY here and its output goes
 * to the stage log; to also show it as a live terminal the person can type into, the shells engine registers
 * a host with `setStageTerminalHost` and is handed each tty stage's terminal when its attempt starts.
 * Nothing else in the graphs engine needs to change for that.
 */
export interface StageTerminal {
  /** `<graphId>:<stageId>`, the stage's task id, plus the attempt number. */
  taskId: string;
  attempt: number;
  pid: number;
  write(data: string): void;
  resize(columns: number, rows: number): void;
  /** Output as it arrives (the same bytes the log gets). Returns an unsubscribe. */
  onData(listener: (data: string) => void): () => void;
  /** Called once when the attempt's process exited. Returns an unsubscribe. */
  onExit(listener: () => void): () => void;
}

export interface StageTerminalHost {
  attach(terminal: StageTerminal): void;
}

let host: StageTerminalHost | null = null;

export function setStageTerminalHost(next: StageTerminalHost | null): void {
  host = next;
}

export function stageTerminalHost(): StageTerminalHost | null {
  return host;
}
