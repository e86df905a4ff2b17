import { AGENT_ENV, AGENT_SERVER_NAME, otelMetricsEnv, OTLP_METRICS_HEADERS, bearer, json, type ClientProfile } from './types';

export const CLAUDE_CODE = {
  id: 'claude-code',
  label: 'Claude Code',
  start: {
    program: 'claude',
    participant: 'claude-code',
    install: 'npm install -g @anthropic-ai/claude-code',
    versionArgs: ['--version'],
    // --mcp-config loads servers for this session beside the user's own; Claude Code expands ${VAR} in it
    // (the `=` form: the option takes several files, and would swallow the arguments after it)
    plan: (url, file) => ({
      args: [`--mcp-config=${file('mcp.json')}`],
      env: {},
      files: [{ name: 'mcp.json', content: json({ mcpServers: { [AGENT_SERVER_NAME]: { type: 'http', url, headers: bearer(`\${${AGENT_ENV.token}}`) } } }) }],
    }),
    // `claude [options] [prompt]`: after `--`, a prompt that starts with a dash is still the prompt
    // CLAUDE_CODE_ENABLE_TELEMETRY=1 and the standard OTel variables (its monitoring docs): it exports
    // claude_code.token.usage (attribute type) and claude_code.cost.usage (USD), delta temporality; its events
    // (the logs signal) stay off
    telemetry: (otlp) => ({ args: [], env: { CLAUDE_CODE_ENABLE_TELEMETRY: '1', ...otelMetricsEnv(otlp), OTEL_LOGS_EXPORTER: 'none' }, headers: [OTLP_METRICS_HEADERS] }),
    prompt: (text) => ['--', text],
    // -c/--continue: the most recent conversation in the current directory (a prompt after it is its next turn)
    resume: (args) => ['--continue', ...args],
    // Esc interrupts it (its status line: "esc to interrupt"); after a limit, a new turn goes on
    interrupt: '\x1b',
    continueText: 'continue',
  },
  snippet: (url, token) => ({
    id: 'claude-code',
    label: 'Claude Code',
    where: 'Run in a terminal (--scope user: in every folder; without it, Claude Code adds it for the current folder only)',
    text: `claude mcp add --transport http --scope user ${AGENT_SERVER_NAME} ${url} --header "Authorization: Bearer ${token}"`,
  }),
  screen: {
    waiting: [
      /Do you want to (proceed|make this edit|create|allow|run)\b/,
      /^\s*❯\s*1\.\s*Yes\b/,
      /Choose the text style that looks best with your terminal/,
      /Select login method/,
      /Press Enter to (continue|retry)/,
    ],
    working: [/esc to interrupt/i],
    // its plan's limit ("You've hit your session limit · resets 3am (Europe/London)", from its bundled source),
    // out of credits, and an API key's 429 ("API Error: Request rejected (429) · …", its real screen)
    limited: [/You[’']ve hit your .*\blimit\b/, /You[’']re out of usage credits/, /\bClaude (AI )?usage limit reached\b/, /API Error: .*\(429\)/],
  },
} as const satisfies ClientProfile;
