import { AGENT_ENV, AGENT_SERVER_NAME, OTLP_EXPORT_INTERVAL_MS, OTLP_METRICS_HEADERS, toml, type ClientProfile } from './types';

export const CODEX = {
  id: 'codex',
  label: 'Codex',
  start: {
    program: 'codex',
    participant: 'codex',
    install: 'npm install -g @openai/codex',
    versionArgs: ['--version'],
    // -c overrides ~/.codex/config.toml for this run; bearer_token_env_var names the variable, not the token
    plan: (url) => ({
      args: ['-c', `mcp_servers.${AGENT_SERVER_NAME}.url=${toml(url)}`, '-c', `mcp_servers.${AGENT_SERVER_NAME}.bearer_token_env_var=${toml(AGENT_ENV.token)}`],
      env: {},
      files: [],
    }),
    // `codex [OPTIONS] [PROMPT]`: the session's first prompt
    // the [otel] table's metrics exporter for this run (-c; its events and traces stay as the person set them): it
    // exports codex.turn.token_usage (attribute token_type); its OTLP exporter (the Rust SDK's) reads the header
    // variable. Only a URL is in the arguments
    telemetry: (otlp) => ({
      args: ['-c', `otel.metrics_exporter={ otlp-http = { endpoint = ${toml(`${otlp}/v1/metrics`)}, protocol = "binary" } }`],
      env: { OTEL_METRIC_EXPORT_INTERVAL: String(OTLP_EXPORT_INTERVAL_MS) },
      headers: [OTLP_METRICS_HEADERS],
    }),
    prompt: (text) => ['--', text],
    // `codex resume --last [OPTIONS]`: the most recent session in this folder; its one positional is a session id
    // before a prompt, so a run with a first prompt starts anew
    resume: (args, withPrompt) => (withPrompt ? null : ['resume', '--last', ...args]),
    // Esc interrupts the turn (its status line: "esc to interrupt")
    interrupt: '\x1b',
    continueText: 'continue',
  },
  snippet: (url, token) => ({
    id: 'codex',
    label: 'Codex',
    where: `~/.codex/config.toml, then export ${AGENT_ENV.token}=${token}`,
    text: `[mcp_servers.${AGENT_SERVER_NAME}]\nurl = "${url}"\nbearer_token_env_var = "${AGENT_ENV.token}"\n\n# in your shell profile:\n# export ${AGENT_ENV.token}="${token}"`,
  }),
  screen: {
    waiting: [
      /Would you like to (run|make|apply)\b/,
      /Allow (command|Codex)\b/i,
      /Allow the .+ MCP server to run tool\b/,
      /Sign in with ChatGPT/,
      /Trust this folder\?/,
      /Press Enter to continue/,
      /^\s*[›>▌]\s*1\.\s*Yes\b/,
    ],
    working: [/esc to interrupt/i],
    // its ChatGPT plan's limit ("You’ve hit your usage limit. … try again at 9:31 AM.") and a 429 it gave up
    // retrying ("exceeded retry limit, last status: 429 Too Many Requests"), both its real screens
    limited: [/You[’']ve hit your usage limit\b/, /exceeded retry limit, last status: 429\b/],
  },
} as const satisfies ClientProfile;
