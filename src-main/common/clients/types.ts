/**
 * One MCP client people use with a room, in one file (clients/<id>.ts) listed in clients/index.ts: how the room
 * starts it already connected (its run plan), how a person connects the copy they run themselves (its snippet),
 * and how to read its screen (its status rules). Adding a client is one new file and a line in the index.
 */

/**
 * How to read a client's screen when its terminal goes quiet: lines that mean it asks the person (`waiting`) and
 * lines that mean it is still at work though nothing moved (`working`).
 */
export interface ShellStatusRules {
  waiting: readonly RegExp[];
  working?: readonly RegExp[];
  /** How long without output reads as quiet (default 1.5 s). */
  quietMs?: number;
  /**
   * Lines that mean it stopped at a usage or rate limit (from its real screens: test/fixtures/limit-screens/).
   * The reset time, when the client shows one, is read from the words after "resets", "try again at|in" or
   * "retry in" on that line or the two below it (a long message wraps).
   */
  limited?: readonly RegExp[];
}

/** The MCP server's name in each client's configuration. */
export const AGENT_SERVER_NAME = 'commonroom';
/** What every agent run gets in its environment; clients that read a token from the environment are told this name. */
export const AGENT_ENV = { url: 'COMMONROOM_MCP_URL', token: 'COMMONROOM_TOKEN', config: 'COMMONROOM_MCP_CONFIG', name: 'COMMONROOM_AGENT', task: 'COMMONROOM_TASK', handoff: 'COMMONROOM_HANDOFF' } as const;

/** A file the room writes for one run (0600, in a folder of its own, removed when the run's terminal ends). */
export interface RunFile {
  name: string;
  content: string;
}

/** How one run of a client is told about the room: extra arguments first, environment, files. */
export interface RunPlan {
  args: string[];
  env: Record<string, string>;
  files: RunFile[];
}

/** How the room starts a client in a terminal of its own (ce agent start, the Terminals screen's New agent). */
export interface StartPlan {
  /** The program looked up on the PATH (null: the person names the command). */
  program: string | null;
  /** The base of its participant's name: claude-code, claude-code-2, … */
  participant: string;
  /** How to get it, for a client that is not on the PATH. */
  install: string | null;
  /** Arguments that print its version. */
  versionArgs: string[];
  /**
   * Its per-run configuration, for the endpoint `url`; `file(name)` is where a run file `name` will be. The
   * token is never on a command line: it is in the run's environment, and every per-run file names the variable.
   */
  plan(url: string, file: (name: string) => string): RunPlan;
  /**
   * How one run sends its usage metrics (OpenTelemetry) to the room's OTLP endpoint `otlp`, the way the client
   * documents it (TelemetryPlan, below); absent: it reports none.
   */
  telemetry?(otlp: string): TelemetryPlan;
  /**
   * The arguments that give it `text` as its first prompt in an interactive session, the way its --help says
   * (after the others; absent: it reads COMMONROOM_TASK from its environment, as any command can).
   */
  prompt?(text: string): string[];
  /**
   * Its arguments (`args`: the room's and the prompt's) made to go on with its most recent conversation in the
   * folder it starts in, the way its --help says ("Start again", a follow-up); absent: it starts anew.
   * `withPrompt`: whether `args` end with a first prompt (a client that cannot take both starts anew then).
   */
  resume?(args: string[], withPrompt: boolean): string[] | null;
  /** The key its docs give to interrupt what it is doing (Esc for the agent CLIs; Ctrl-C for a command). */
  interrupt: string;
  /**
   * What is typed to go on after a usage limit reset (then Enter); null for a client that retries by itself at
   * the reset (opencode counts down to it): the room then types nothing, ever.
   */
  continueText: string | null;
}

/** Copy-ready configuration for a client a person runs themselves, with a participant's own token. */
export interface Snippet {
  id: string;
  label: string;
  where: string;
  text: string;
}

export interface ClientProfile {
  /** Its id (the start plan's client id, when the room can start it). */
  id: string;
  label: string;
  /** Absent: the room does not start it (a desktop app, an editor). */
  start?: StartPlan;
  /** The configuration a person pastes, for the endpoint `url` and a participant's `token`; absent: none. */
  snippet?(url: string, token: string): Snippet;
  /** How its screen reads when its terminal goes quiet (tested on screens captured from the real CLI). */
  screen?: ShellStatusRules;
}

export const bearer = (reference: string) => ({ Authorization: `Bearer ${reference}` });
export const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
/** A TOML basic string. */
export const toml = (text: string) => JSON.stringify(text);

/**
 * How one run of a client is told to send its usage metrics to the room (OpenTelemetry over OTLP/HTTP), the way
 * that client documents it, for that run only: environment variables and per-run overrides, never the person's
 * own settings files (docs/spend.md). The token is never in it: the room sets each variable named in `headers` to
 * "Authorization=Bearer <the run's token>" in the run's environment (the OTel header variables' format). Only the
 * metrics signal's variable carries it, so a logs or traces exporter a person set up in their own environment
 * never gets the room's token.
 */
export interface TelemetryPlan {
  args: string[];
  env: Record<string, string>;
  /** Variables the room sets to "Authorization=Bearer <token>". */
  headers: string[];
}

/** How often the room asks a client to export (ms): the default 60 s would let an envelope overrun by a minute. */
export const OTLP_EXPORT_INTERVAL_MS = 5000;

/** The OpenTelemetry SDK's own variables for metrics over OTLP/HTTP with protobuf (the JS and Rust SDKs read them); `otlp` is the room's OTLP base. */
export function otelMetricsEnv(otlp: string): Record<string, string> {
  return {
    OTEL_METRICS_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf',
    OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${otlp}/v1/metrics`,
    OTEL_METRIC_EXPORT_INTERVAL: String(OTLP_EXPORT_INTERVAL_MS),
  };
}

/** The metrics signal's header variable, which carries the run's token. */
export const OTLP_METRICS_HEADERS = 'OTEL_EXPORTER_OTLP_METRICS_HEADERS';
