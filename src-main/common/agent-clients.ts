/**
 * The agent CLIs the room can start in a terminal of its own, already connected (ce agent start, the Terminals
 * screen's New agent). Each is data: its program, how to install it, and how it is given the room's MCP server
 * for one run only, the way its own documentation says (checked against the installed CLI's --help and a real
 * run; see docs/agents.md). The token is never on a command line: it is in the run's environment, and every
 * per-run file names the variable, never the token.
 */
export const AGENT_CLIENT_IDS = ['claude-code', 'codex', 'gemini-cli', 'opencode', 'command'] as const;
export type AgentClientId = (typeof AGENT_CLIENT_IDS)[number];

/** The MCP server's name in each client's per-run configuration. */
export const AGENT_SERVER_NAME = 'commonroom';
/** What every agent run gets in its environment. */
export const AGENT_ENV = { url: 'COMMONROOM_MCP_URL', token: 'COMMONROOM_TOKEN', config: 'COMMONROOM_MCP_CONFIG', name: 'COMMONROOM_AGENT' } as const;

/**
 * What an agent run does not inherit from the room process: the markers by which CLIs tell there is no person at
 * the terminal. An agent's terminal is one a person watches and types into, wherever the room itself was started
 * (with CI=true, Gemini CLI 0.61 runs headless and exits 41 at its sign-in instead of asking).
 */
export const AGENT_UNSET_ENV = ['CI', 'GITHUB_ACTIONS'] as const;

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

export interface AgentClient {
  id: AgentClientId;
  label: string;
  /** The program looked up on the PATH (null: the person names the command). */
  program: string | null;
  /** The base of its participant's name: claude-code, claude-code-2, … */
  participant: string;
  /** How to get it, for a client that is not on the PATH. */
  install: string | null;
  /** Arguments that print its version. */
  versionArgs: string[];
  /** Its per-run configuration, for the endpoint `url`; `file(name)` is where a run file `name` will be. */
  plan(url: string, file: (name: string) => string): RunPlan;
}

const bearer = (reference: string) => ({ Authorization: `Bearer ${reference}` });
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
/** A TOML basic string. */
const toml = (text: string) => JSON.stringify(text);

export const AGENT_CLIENTS: Record<AgentClientId, AgentClient> = {
  'claude-code': {
    id: 'claude-code',
    label: 'Claude Code',
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
  },
  codex: {
    id: 'codex',
    label: 'Codex',
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
  },
  'gemini-cli': {
    id: 'gemini-cli',
    label: 'Gemini CLI',
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
  },
  opencode: {
    id: 'opencode',
    label: 'opencode',
    program: 'opencode',
    participant: 'opencode',
    install: 'npm install -g opencode-ai',
    versionArgs: ['--version'],
    // OPENCODE_CONFIG adds a config file to the user's own; opencode reads {env:VAR} in it
    plan: (url, file) => ({
      args: [],
      env: { OPENCODE_CONFIG: file('opencode.json') },
      files: [{ name: 'opencode.json', content: json({ $schema: 'https://opencode.ai/config.json', mcp: { [AGENT_SERVER_NAME]: { type: 'remote', url, headers: bearer(`{env:${AGENT_ENV.token}}`) } } }) }],
    }),
  },
  command: {
    id: 'command',
    label: 'Command',
    program: null,
    participant: 'agent',
    install: null,
    versionArgs: [],
    // any other client: the endpoint and token in the environment, and a config file in the common
    // mcpServers shape whose header names the variable (most clients expand ${VAR})
    plan: (url, file) => ({
      args: [],
      env: { [AGENT_ENV.config]: file('mcp.json') },
      files: [{ name: 'mcp.json', content: json({ mcpServers: { [AGENT_SERVER_NAME]: { type: 'http', url, headers: bearer(`\${${AGENT_ENV.token}}`) } } }) }],
    }),
  },
};

/**
 * The first of `base`, `base-2`, `base-3`, … that `taken` does not hold: each run gets a participant of its
 * own, named after its client.
 */
export function uniqueParticipantName(base: string, taken: (name: string) => boolean, max = 10_000): string {
  if (!taken(base)) return base;
  for (let n = 2; n <= max; n++) if (!taken(`${base}-${n}`)) return `${base}-${n}`;
  throw new Error(`no free name after ${base}-${max}`);
}
