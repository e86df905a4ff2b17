import { AGENT_ENV, AGENT_SERVER_NAME, otelMetricsEnv, OTLP_METRICS_HEADERS, bearer, json, type ClientProfile } from './types';

/** Any other client: the room starts the command given; a person connects it over plain Streamable HTTP. */
export const COMMAND = {
  id: 'command',
  label: 'Command',
  start: {
    program: null,
    participant: 'agent',
    install: null,
    versionArgs: [],
    // any program: Ctrl-C, as a terminal interrupts one
    interrupt: '\x03',
    continueText: 'continue',
    // the endpoint and token in the environment, and a config file in the common mcpServers shape whose header
    // names the variable (most clients expand ${VAR})
    // the standard OTel variables, for a program that exports with an OpenTelemetry SDK
    telemetry: (otlp) => ({ args: [], env: otelMetricsEnv(otlp), headers: [OTLP_METRICS_HEADERS] }),
    plan: (url, file) => ({
      args: [],
      env: { [AGENT_ENV.config]: file('mcp.json') },
      files: [{ name: 'mcp.json', content: json({ mcpServers: { [AGENT_SERVER_NAME]: { type: 'http', url, headers: bearer(`\${${AGENT_ENV.token}}`) } } }) }],
    }),
  },
  snippet: (url, token) => ({ id: 'http', label: 'Generic HTTP', where: 'Any MCP client over Streamable HTTP', text: `URL:    ${url}\nHeader: Authorization: Bearer ${token}` }),
} as const satisfies ClientProfile;
