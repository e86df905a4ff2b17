import type { TerminalSpawn } from '../terminal/pty';
import type { ShellAgent } from '../../common/methods/shells';
import type { SentinelFamily } from './shell-integration';

/** What a shell runs (a terminal spawn) and who and what it is. */
export interface ShellSpawn extends TerminalSpawn {
  id: string;
  name: string;
  owner: string;
  tag: string;
  scrollbackBytes: number;
  /** The most lines the scrollback keeps (the byte cap holds too). */
  scrollbackLines?: number | undefined;
  /** A tty graph stage shown as a shell: its lifetime belongs to the graph, not to shell_close. */
  stage?: string | undefined;
  /** How shell_run finds a command's output and exit code (shell-integration.ts); none for a stage. */
  integration?: { mode: 'marks' | 'sentinel'; family: SentinelFamily; nonce: string } | undefined;
  /** The arguments asked for, before the integration added its own (what shell_list shows). */
  shownArgs?: string[] | undefined;
  /** The program asked for, when `file` is the sandbox that runs it. */
  shownFile?: string | undefined;
  /** The sandbox its processes run in (agent-sandbox.ts), or null. */
  sandbox?: string | null | undefined;
  /** Lines the screen mirror keeps above the screen. */
  screenScrollbackLines?: number | undefined;
  /** The agent the room started in it (its status is read with that client's rules). */
  agent?: ShellAgent | undefined;
}

/** A command shell_run typed and has not seen the end of yet (shell-run.ts). */
export interface ActiveRun {
  command: string;
  /** Output offset when it was typed: its marks come after. */
  from: number;
  mode: 'marks' | 'sentinel';
  done: boolean;
  interrupted: boolean;
}

export interface InputRecord {
  at: string;
  by: string;
  bytes: number;
}

/**
 * What the registry hears of every shell it holds, through one object it shares among them all (not a listener
 * and a promise reaction per shell: a room of idle shells pays for each closure, set and promise a shell keeps).
 */
export interface ShellHooks<S> {
  /** What a list shows of it changed: its status, its size or its condition. */
  listed(shell: S, what: 'status' | 'size' | 'condition'): void;
  /** Its process ended (after its last output, its viewers and its own listeners told). */
  ended(shell: S): void;
}
