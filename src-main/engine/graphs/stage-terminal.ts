/**
 * A `tty: true` stage runs in a PTY and its output goes to the stage log; it is also a live shell the person
 * can watch and type into: the engine gives the graphs runtime a host (the shell registry) that is handed each
 * tty stage's terminal when its attempt starts.
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
