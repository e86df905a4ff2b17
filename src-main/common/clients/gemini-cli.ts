import { AGENT_ENV, AGENT_SERVER_NAME, OTLP_METRICS_HEADERS, bearer, json, type ClientProfile } from './types';

export const GEMINI_CLI = {
  id: 'gemini-cli',
  label: 'Gemini CLI',
  start: {
    program: 'gemini',
    participant: 'gemini-cli',
    install: 'npm install -g @google/gemini-cli',
    versionArgs: ['--version'],
    // a settings file of its own through GEMINI_CLI_SYSTEM_SETTINGS_PATH (merged with the user's settings;
    // Gemini CLI expands $VAR in it), and the folder the person chose trusted for this run: in an untrusted
    // folder Gemini CLI starts no MCP server at all
    plan: (url, file) => ({
      args: [],
      env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: file('settings.json'), GEMINI_CLI_TRUST_WORKSPACE: 'true' },
      files: [{ name: 'settings.json', content: json({ mcpServers: { [AGENT_SERVER_NAME]: { httpUrl: url, headers: bearer(`\${${AGENT_ENV.token}}`) } } }) }],
    }),
    // -i/--prompt-interactive: runs the prompt and stays interactive
    // its GEMINI_TELEMETRY_* variables (they override the telemetry settings: enabled, target local, otlpEndpoint,
    // otlpProtocol http): it sends metrics (gemini_cli.token.usage, attribute type), logs and traces to the one
    // endpoint, so each signal's header variable carries the token (the room keeps the metrics only); no prompts
    telemetry: (otlp) => ({
      args: [],
      env: { GEMINI_TELEMETRY_ENABLED: 'true', GEMINI_TELEMETRY_TARGET: 'local', GEMINI_TELEMETRY_OTLP_ENDPOINT: otlp, GEMINI_TELEMETRY_OTLP_PROTOCOL: 'http', GEMINI_TELEMETRY_LOG_PROMPTS: 'false', GEMINI_TELEMETRY_USE_COLLECTOR: 'false' },
      headers: [OTLP_METRICS_HEADERS, 'OTEL_EXPORTER_OTLP_LOGS_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'],
    }),
    prompt: (text) => [`--prompt-interactive=${text}`],
    // -r/--resume latest: the project's most recent session
    resume: (args) => ['--resume=latest', ...args],
    // Esc cancels the request (its status line: "esc to cancel")
    interrupt: '\x1b',
    continueText: 'continue',
  },
  snippet: (url, token) => ({
    id: 'gemini-cli',
    label: 'Gemini CLI',
    where: 'Run in a terminal (--scope user: in every folder); Gemini CLI connects only in folders you trust (it asks when it starts in one)',
    text: `gemini mcp add --transport http --scope user ${AGENT_SERVER_NAME} ${url} --header "Authorization: Bearer ${token}"`,
  }),
  screen: {
    waiting: [
      /Allow execution\b/,
      /Apply this change\?/,
      /Do you want to proceed\?/,
      /How would you like to authenticate/,
      /Do you trust (this folder|the files in this folder)/,
      /Waiting for (auth|authentication)/i,
      /^\s*●\s*1\.\s*(Yes|Allow)\b/,
    ],
    working: [/esc to cancel/i],
    // its quota messages ("Usage limit reached for gemini-2.5-pro." then "Access resets at 3:00 AM UTC.", "You have
    // exhausted your daily quota on this model.", "Rate limit exceeded. Try again later.", from its bundled source)
    limited: [/Usage limit reached for\b/, /exhausted your daily quota\b/, /Rate limit exceeded\. Try again later/, /Please wait and try again later\. To increase your limits/],
  },
} as const satisfies ClientProfile;
