import { z } from 'zod';
import { LIMITS } from '../limits';
import { AGENT_PATTERN_SYNTAX } from '../safe-pattern';
import type { MethodSpec } from '../method-spec';
import { lazily } from '../lazily';
import { hostAlias } from './hosts';
import { cursorParam } from '../paging';

/** A terminal's size, as shell_open, shell_io and a live view's resize accept it. */
export const TERMINAL_BOUNDS = { cols: { min: 2, max: 1000 }, rows: { min: 2, max: 500 } } as const;

const shellId = lazily(() => z.string().min(1).max(64).describe('the shell id shell_open returned (sh_…; shell_list shows them)'));
const path = lazily(() => z.string().min(1).max(4096));

const inputItem = lazily(() =>
  z.union([
    z.object({ text: z.string().max(LIMITS.shellMaxInputBytes).describe('text typed as is') }).strict(),
    z.object({ key: z.string().min(1).max(32).describe('a key: "C-c", "Enter", "Tab", "Escape", "Up", …') }).strict(),
  ]),
);

const timeoutMs = lazily(() =>
  z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(`give up waiting after this long; clamped to ${LIMITS.shellMaxWaitMs} ms (the answer's wait.effectiveTimeoutMs says what was used)`),
);
const pattern = lazily(() => z.string().min(1).max(1000).describe('a regular expression matched against ANSI-stripped output'));

export const shellWaitSchema = lazily(() =>
  z.discriminatedUnion('until', [
    z.object({ until: z.literal('match').describe('until pattern matches'), pattern: pattern(), stopPatterns: z.array(pattern()).max(16).optional().describe('stop early when one of these matches (e.g. an error)'), timeoutMs: timeoutMs() }).strict(),
    z.object({ until: z.literal('idle').describe('until the output is quiet'), idleMs: z.number().int().min(10).max(LIMITS.shellMaxWaitMs).describe('quiet for this long'), timeoutMs: timeoutMs() }).strict(),
    z.object({ until: z.literal('exit').describe('until the shell exits'), timeoutMs: timeoutMs() }).strict(),
    z
      .object({
        until: z.literal('status').describe("until the shell's status (what the program in it is doing) is one of these"),
        status: z.array(z.enum(['working', 'waiting', 'idle', 'exited'])).min(1).max(4).describe('e.g. ["waiting", "idle", "exited"]: another agent asks the person, is done, or ended'),
        timeoutMs: timeoutMs(),
      })
      .strict(),
  ]),
);

/** What the program in a shell is doing, read from its terminal (engine/shells/shell-status.ts). */
export type ShellState = 'working' | 'waiting' | 'idle' | 'exited';
export const SHELL_STATES: readonly ShellState[] = ['working', 'waiting', 'idle', 'exited'];

export interface ShellStatus {
  state: ShellState;
  /** When it entered this state. */
  since: string;
  /** Why, in words: the notification's text, the screen line that asks, the exit code. */
  reason?: string;
  /** The terminal's title, as the program last set it. */
  title?: string;
}

/** The agent a shell was started for (ce agent start, the Terminals screen's New agent). */
export interface ShellAgent {
  client: string;
  label: string;
  participant: string;
  version: string | null;
}

/**
 * What the room's watch of an agent adds to its status (engine/agents/agent-watch.ts): its terminal, CPU and
 * process tree quiet too long while it reads working (`stalled`), or its client stopped at a usage or rate limit
 * (`limited`, with the reset time when the client showed one, and when the room will type its continue).
 */
export interface ShellCondition {
  stalled?: { since: string; quietSince: string };
  limited?: { since: string; text: string; until: string | null; resumeAt: string | null };
}

export interface ShellView {
  id: string;
  name: string;
  owner: string;
  cwd: string;
  command: string[];
  pid: number;
  startedAt: string;
  alive: boolean;
  exitCode: number | null;
  signal: string | null;
  cols: number;
  rows: number;
  /** Bytes of output so far. */
  outputBytes: number;
  lastInput: { by: string; at: string } | null;
  /**
   * The OS sandbox its processes run in ("bubblewrap", "sandbox-exec"), which hides the room's tokens,
   * database, lock and logs; null for the person's own shells, and where this machine has no sandbox.
   */
  sandbox: string | null;
  /** What the program in it is doing: working, waiting (for the person), idle, exited. */
  status: ShellStatus;
  /** The agent it was started for, if the room started one in it. */
  agent: ShellAgent | null;
  /** Stalled or limited (an agent the room started); absent: neither. */
  condition?: ShellCondition;
  /** The room's host it runs on (an SSH alias: docs/hosts.md); absent: this machine. */
  host?: string;
  /** false: its host cannot be reached now (the shell goes on there; what it does is unknown until it is back). */
  hostReachable?: boolean;
}

/** The terminal's screen as a person sees it (format "screen"), rendered by a headless terminal emulator. */
export interface ShellScreen {
  cols: number;
  rows: number;
  /** Where the cursor stands, 0-based from the top-left cell. */
  cursor: { row: number; col: number };
  /** A full-screen program (vim, less, top) is on the alternate screen. */
  alternateScreen: boolean;
  /** Arrow keys are sent in application mode (ESC O A), as the program asked. */
  applicationCursorKeys: boolean;
}

export interface ShellRunResult {
  shellId: string;
  /** finished: the command ended (exitCode is its code); running: still running at the timeout (it was left running); shellExited: the shell itself ended (exitCode is the shell's); cancelled: the call was cancelled (the command goes on). */
  status: 'finished' | 'running' | 'shellExited' | 'cancelled';
  exitCode: number | null;
  /** The command's output, without the echoed command line and the shell's marks; the newest maxBytes of it. */
  output: string;
  /** Where the command's output starts (opaque; read it all with shell_io from here). */
  cursor: string;
  /** Where the returned output ends (opaque; shell_io reads on from here). */
  nextCursor: string;
  /** Bytes of output before `output` that were left out (longer than maxBytes, or no longer in the scrollback). */
  omittedBytes: number;
  /** How the end and the exit code were found: the shell's prompt marks (bash, zsh) or a sentinel typed after the command. */
  integration: 'marks' | 'sentinel';
  effectiveTimeoutMs: number;
  /** What to do next, when the command did not finish. */
  hint?: string;
}

export interface ShellIoResult {
  shellId: string;
  /** Output from `cursor` to `nextCursor`, ANSI-stripped (format "text") or as the terminal sent it ("raw"). */
  output: string;
  /** Where `output` begins (opaque, like every cursor). */
  cursor: string;
  /** Pass as `cursor` to read on. */
  nextCursor: string;
  /** More output is waiting after nextCursor: call again with it. */
  more: boolean;
  /** The cursor asked for had already left the scrollback: output before `cursor` is lost. */
  truncated: boolean;
  alive: boolean;
  exit: { exitCode: number | null; signal: string | null } | null;
  /** What the program in it is doing now (working, waiting for the person, idle, exited). */
  status: ShellStatus;
  wait: {
    reason: 'matched' | 'stopped' | 'idle' | 'exited' | 'status' | 'timeout' | 'cancelled';
    pattern?: string;
    match?: string;
    effectiveTimeoutMs: number;
  } | null;
  /** format "screen" only: the screen's size, cursor and modes (`output` is its text, one line per row). */
  screen?: ShellScreen;
}

export const SHELL_METHODS = {
  shell_open: {
    description:
      'Open a persistent PTY shell (the person at the desktop can watch and type too). Returns its id. ' +
      'Defaults: your $SHELL, the room folder, 120x32. Shells end when the runner restarts.',
    capability: 'write',
    input: lazily(() => z
      .object({
        name: z.string().min(1).max(64).optional().describe('a name people see in the terminal list'),
        cwd: path().optional().describe("working folder (default: the room's folder; with handoffId: a folder inside its worktree)"),
        handoffId: z.string().min(1).max(64).optional().describe("start in this handoff's workspace (its git worktree; you must be its assignee)"),
        host: hostAlias().optional().describe("run it on this host of the room (an SSH alias the person added: see the room's hosts); default: this machine"),
        shell: path().optional().describe('the program to run (default: your $SHELL)'),
        args: z.array(z.string().max(4096)).max(32).optional().describe('its arguments'),
        env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).max(128), z.string().max(8192)).optional().describe('environment variables to set (at most 64)'),
        cols: z.number().int().min(TERMINAL_BOUNDS.cols.min).max(TERMINAL_BOUNDS.cols.max).optional().describe('terminal width (default 120)'),
        rows: z.number().int().min(TERMINAL_BOUNDS.rows.min).max(TERMINAL_BOUNDS.rows.max).optional().describe('terminal height (default 32)'),
      })
      .strict()
      .refine((v) => Object.keys(v.env ?? {}).length <= 64, { message: 'at most 64 environment variables', path: ['env'] })),
    mcpTool: true,
  },
  shell_io: {
    description:
      'Send input to a shell and read its output since a cursor. Input: `text`, and/or `input` items ' +
      '({text} or {key: "C-c" | "Enter" | "Tab" | "Escape" | "Up" | ...}) sent in order. Output: from `cursor` ' +
      '(default: where the output stood before your input), at most `maxBytes`, with `nextCursor`, `more` and ' +
      `\`truncated\`. Optional server-side \`wait\`: {until:"match", pattern, stopPatterns} | {until:"idle", idleMs} | ` +
      `{until:"exit"} | {until:"status", status: ["waiting", "idle", …]} (what the program in it is doing: one agent waits for another without polling; a status wait alone also works on another participant's terminal, answering its state only), each with timeoutMs (clamped to ${LIMITS.shellMaxWaitMs} ms); patterns match ANSI-stripped ` +
      'output (^ and $ at line ends), and the terminal echoes your input, so choose a pattern your command line does not contain. ' +
      `${AGENT_PATTERN_SYNTAX} Optional \`resize\`. \`format\`: "text" (ANSI stripped, default), "raw", or "screen": the ` +
      'terminal\'s current screen as a person sees it (one line per row, with `screen.cursor`), the way to read vim, less, top or redrawing progress bars.',
    capability: 'write',
    input: lazily(() => z
      .object({
        shellId: shellId(),
        text: z.string().max(LIMITS.shellMaxInputBytes).optional().describe('text to type ("\\n" runs a command)'),
        input: z.array(inputItem()).max(256).optional().describe('input items sent in order after text: {text} or {key}'),
        resize: z
          .object({
            cols: z.number().int().min(TERMINAL_BOUNDS.cols.min).max(TERMINAL_BOUNDS.cols.max).describe('columns'),
            rows: z.number().int().min(TERMINAL_BOUNDS.rows.min).max(TERMINAL_BOUNDS.rows.max).describe('rows'),
          })
          .strict()
          .optional()
          .describe('resize the terminal first'),
        cursor: cursorParam('read from where the output stood before your input; "start" reads from the oldest output kept').optional(),
        maxBytes: z.number().int().min(1).max(LIMITS.shellMaxReadBytes).optional().describe(`at most this many bytes of output per answer (at most ${LIMITS.shellMaxReadBytes})`),
        format: z.enum(['text', 'raw', 'screen']).optional().describe('text (default): ANSI-stripped; raw: as the terminal sent it; screen: the terminal\'s current screen as a person sees it (one line per row, with the cursor)'),
        wait: shellWaitSchema().optional().describe('wait on the server before answering: {until: "match" | "idle" | "exit", …}'),
      })
      .strict()),
    mcpTool: true,
  },
  shell_run: {
    description:
      'Run one command in a shell at its prompt and answer its output (without the echoed command line) and its exit code. ' +
      'bash and zsh shells opened here mark their prompts (OSC 133); other shells get a sentinel typed after the command. ' +
      `Waits at most timeoutMs (default ${LIMITS.shellDefaultWaitMs}, clamped to ${LIMITS.shellMaxWaitMs}); a command still running then ` +
      'is left running (status "running"): call shell_run again with only shellId to keep waiting, or with interrupt: true to send C-c ' +
      '(exit code 130). For full-screen programs use shell_io with format "screen".',
    capability: 'write',
    input: lazily(() => z
      .object({
        shellId: shellId(),
        command: z.string().min(1).max(LIMITS.shellMaxInputBytes).optional().describe('The command line to run; omit it to keep waiting for the one still running.'),
        interrupt: z.boolean().optional().describe('Send C-c to the command still running, then wait for its end.'),
        timeoutMs: z.number().int().min(0).max(86_400_000).optional().describe(`How long to wait for the end; above ${LIMITS.shellMaxWaitMs} it is clamped.`),
        maxBytes: z.number().int().min(1).max(LIMITS.shellMaxReadBytes).optional().describe('At most this much output (the newest part).'),
        format: z.enum(['text', 'raw']).optional().describe('"text" (ANSI stripped, default) or "raw".'),
      })
      .strict()),
    mcpTool: true,
  },
  shell_close: {
    description: 'Close a shell: ends its whole process tree (SIGHUP, SIGTERM, then SIGKILL) and reports how it ended.',
    capability: 'write',
    input: lazily(() => z.object({ shellId: shellId() }).strict()),
    mcpTool: true,
  },
  shell_list: {
    description: 'List the shells you can see: id, name, owner, cwd, pid, start time, alive or exit status, size.',
    capability: 'read',
    input: lazily(() => z.object({}).strict()),
    mcpTool: true,
  },
} satisfies Record<string, MethodSpec>;

export interface ShellOutputs {
  shell_open: { shell: ShellView };
  shell_io: ShellIoResult;
  shell_run: ShellRunResult;
  shell_close: { shellId: string; exit: { exitCode: number | null; signal: string | null }; alreadyExited: boolean };
  shell_list: { shells: ShellView[] };
}
