/**
 * How each client the room starts is told to send its usage metrics to the room (OpenTelemetry over OTLP/HTTP),
 * the way that client documents it, for one run only: environment variables and per-run overrides, never the
 * person's own settings files. `otlp` is the room's OTLP base (http://127.0.0.1:PORT/otlp); the metrics go to
 * `${otlp}/v1/metrics`. The token is never here: the room sets each variable named in `headers` to
 * "Authorization=Bearer <the run's token>" in the run's environment (the OTel header variables' format).
 * Only the metrics signal carries it (the *_METRICS_HEADERS variable), so a person's own logs or traces
 * exporter, set up in their environment, never gets the room's token. docs/spend.md says what each one sends.
 */

/** What one run adds to its start for telemetry. */
export interface TelemetryPlan {
  args: string[];
  env: Record<string, string>;
  /** Variables the room sets to "Authorization=Bearer <token>". */
  headers: string[];
}

/** How often the room asks a client to export (ms): the default 60 s would let an envelope overrun by a minute. */
export const OTLP_EXPORT_INTERVAL_MS = 5000;

/** The OpenTelemetry SDK's own variables, for metrics over OTLP/HTTP with protobuf (the JS and Rust SDKs read these). */
function otelSdkEnv(otlp: string): Record<string, string> {
  return {
    OTEL_METRICS_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/protobuf',
    OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${otlp}/v1/metrics`,
    OTEL_METRIC_EXPORT_INTERVAL: String(OTLP_EXPORT_INTERVAL_MS),
  };
}

/**
 * Claude Code: CLAUDE_CODE_ENABLE_TELEMETRY=1 and the standard OTel variables (its monitoring docs); it exports
 * claude_code.token.usage (attribute type: input, output, cacheRead, cacheCreation) and claude_code.cost.usage
 * (USD), with delta temporality. Logs (events) stay off: the room reads metrics only.
 */
export function claudeCodeTelemetry(otlp: string): TelemetryPlan {
  return { args: [], env: { CLAUDE_CODE_ENABLE_TELEMETRY: '1', ...otelSdkEnv(otlp), OTEL_LOGS_EXPORTER: 'none' }, headers: ['OTEL_EXPORTER_OTLP_METRICS_HEADERS'] };
}

/**
 * Codex: the [otel] table of config.toml, given for this run with -c (its metrics exporter; events and traces
 * stay as the person set them); it exports codex.turn.token_usage (attribute token_type). Its OTLP exporter (the
 * Rust SDK's) reads the header variable. Only a URL is in the arguments, never the token.
 */
export function codexTelemetry(otlp: string): TelemetryPlan {
  const exporter = `{ otlp-http = { endpoint = ${JSON.stringify(`${otlp}/v1/metrics`)}, protocol = "binary" } }`;
  return { args: ['-c', `otel.metrics_exporter=${exporter}`], env: {}, headers: ['OTEL_EXPORTER_OTLP_METRICS_HEADERS'] };
}

/**
 * Gemini CLI: its GEMINI_TELEMETRY_* variables (they override the telemetry settings: enabled, target local,
 * otlpEndpoint, otlpProtocol http); it sends metrics (gemini_cli.token.usage, attribute type), logs and traces to
 * the one endpoint, so each signal's header variable carries the token; the room keeps the metrics only.
 * Prompts are never logged.
 */
export function geminiTelemetry(otlp: string): TelemetryPlan {
  return {
    args: [],
    env: {
      GEMINI_TELEMETRY_ENABLED: 'true',
      GEMINI_TELEMETRY_TARGET: 'local',
      GEMINI_TELEMETRY_OTLP_ENDPOINT: otlp,
      GEMINI_TELEMETRY_OTLP_PROTOCOL: 'http',
      GEMINI_TELEMETRY_LOG_PROMPTS: 'false',
      GEMINI_TELEMETRY_USE_COLLECTOR: 'false',
    },
    headers: ['OTEL_EXPORTER_OTLP_METRICS_HEADERS', 'OTEL_EXPORTER_OTLP_LOGS_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'],
  };
}

/** Any other command: the standard OTel variables, for a program that exports with an OpenTelemetry SDK. */
export function commandTelemetry(otlp: string): TelemetryPlan {
  return { args: [], env: otelSdkEnv(otlp), headers: ['OTEL_EXPORTER_OTLP_METRICS_HEADERS'] };
}
