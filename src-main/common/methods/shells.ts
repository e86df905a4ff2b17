import { z } from 'zod';
import { LIMITS } from '../limits';
import { AGENT_PATTERN_SYNTAX } from '../safe-pattern';
import type { MethodSpec } from '../method-spec';
import { cursorParam } from '../paging';

const shellId = z.string().min(1).max(64).describe('the shell id shell_open returned (sh_…; shell_list shows them)');
const path = z.string().min(1).max(4096);

const inputItem = z.union([
  z.object({ text: z.string().max(LIMITS.shellMaxInputBytes).describe('text typed as is') }).strict(),
  z.object({ key: z.string().min(1).max(32).describe('a key: "C-c", "Enter", "Tab", "Escape", "Up", …') }).strict(),
]);

const timeoutMs = z
  .number()
  .int()
  .min(0)
  .optional()
  .describe(`give up waiting after this long; clamped to ${LIMITS.shellMaxWaitMs} ms (the answer's wait.effectiveTimeoutMs says what was used)`);
const pattern = z.string().min(1).max(1000).describe('a regular expression matched against ANSI-stripped output');

export const shellWaitSchema = z.discriminatedUnion('until', [
  z.object({ until: z.literal('match').describe('until pattern matches'), pattern, stopPatterns: z.array(pattern).max(16).optional().describe('stop early when one of these matches (e.g. an error)'), timeoutMs }).strict(),
  z.object({ until: z.literal('idle').describe('until the output is quiet'), idleMs: z.number().int().min(10).max(LIMITS.shellMaxWaitMs).describe('quiet for this long'), timeoutMs }).strict(),
  z.object({ until: z.literal('exit').describe('until the shell exits'), timeoutMs }).strict(),
]);

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
  wait: {
    reason: 'matched' | 'stopped' | 'idle' | 'exited' | 'timeout' | 'cancelled';
    pattern?: string;
    match?: string;
    effectiveTimeoutMs: number;
  } | null;
}

export const SHELL_METHODS = {
  shell_open: {
    description:
      'Open a persistent PTY shell (the person at the desktop can watch and type too). Returns its id. ' +
      'Defaults: your $SHELL, the room folder, 120x32. Shells end when the runner restarts.',
    capability: 'write',
    input: z
      .object({
        name: z.string().min(1).max(64).optional().describe('a name people see in the terminal list'),
        cwd: path.optional().describe("working folder (default: the room's folder)"),
        shell: path.optional().describe('the program to run (default: your $SHELL)'),
        args: z.array(z.string().max(4096)).max(32).optional().describe('its arguments'),
        env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).max(128), z.string().max(8192)).optional().describe('environment variables to set (at most 64)'),
        cols: z.number().int().min(2).max(1000).optional().describe('terminal width (default 120)'),
        rows: z.number().int().min(2).max(500).optional().describe('terminal height (default 32)'),
      })
      .strict()
      .refine((v) => Object.keys(v.env ?? {}).length <= 64, { message: 'at most 64 environment variables', path: ['env'] }),
    mcpTool: true,
  },
  shell_io: {
    description:
      'Send input to a shell and read its output since a cursor. Input: `text`, and/or `input` items ' +
      '({text} or {key: "C-c" | "Enter" | "Tab" | "Escape" | "Up" | ...}) sent in order. Output: from `cursor` ' +
      '(default: where the output stood before your input), at most `maxBytes`, with `nextCursor`, `more` and ' +
      `\`truncated\`. Optional server-side \`wait\`: {until:"match", pattern, stopPatterns} | {until:"idle", idleMs} | ` +
      `{until:"exit"}, each with timeoutMs (clamped to ${LIMITS.shellMaxWaitMs} ms); patterns match ANSI-stripped ` +
      'output (^ and $ at line ends), and the terminal echoes your input, so choose a pattern your command line does not contain. ' +
      `${AGENT_PATTERN_SYNTAX} Optional \`resize\`.`,
    capability: 'write',
    input: z
      .object({
        shellId,
        text: z.string().max(LIMITS.shellMaxInputBytes).optional().describe('text to type ("\\n" runs a command)'),
        input: z.array(inputItem).max(256).optional().describe('input items sent in order after text: {text} or {key}'),
        resize: z
          .object({ cols: z.number().int().min(2).max(1000).describe('columns'), rows: z.number().int().min(2).max(500).describe('rows') })
          .strict()
          .optional()
          .describe('resize the terminal first'),
        cursor: cursorParam('read from where the output stood before your input; "start" reads from the oldest output kept').optional(),
        maxBytes: z.number().int().min(1).max(LIMITS.shellMaxReadBytes).optional().describe(`at most this many bytes of output per answer (at most ${LIMITS.shellMaxReadBytes})`),
        format: z.enum(['text', 'raw']).optional().describe('text (default): ANSI-stripped; raw: as the terminal sent it'),
        wait: shellWaitSchema.optional().describe('wait on the server before answering: {until: "match" | "idle" | "exit", …}'),
      })
      .strict(),
    mcpTool: true,
  },
  shell_close: {
    description: 'Close a shell: ends its whole process tree (SIGHUP, SIGTERM, then SIGKILL) and reports how it ended.',
    capability: 'write',
    input: z.object({ shellId }).strict(),
    mcpTool: true,
  },
  shell_list: {
    description: 'List the shells you can see: id, name, owner, cwd, pid, start time, alive or exit status, size.',
    capability: 'read',
    input: z.object({}).strict(),
    mcpTool: true,
  },
} satisfies Record<string, MethodSpec>;

export interface ShellOutputs {
  shell_open: { shell: ShellView };
  shell_io: ShellIoResult;
  shell_close: { shellId: string; exit: { exitCode: number | null; signal: string | null }; alreadyExited: boolean };
  shell_list: { shells: ShellView[] };
}
