import { AGENT_ENV, AGENT_SERVER_NAME, bearer, json, type ClientProfile } from './types';

export const OPENCODE = {
  id: 'opencode',
  label: 'opencode',
  start: {
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
    // --prompt: the prompt its TUI starts with
    prompt: (text) => [`--prompt=${text}`],
    // -c/--continue: the last session
    resume: (args) => ['--continue', ...args],
    // its session_interrupt key is Esc
    interrupt: '\x1b',
    continueText: 'continue',
  },
  snippet: (url, token) => ({
    id: 'opencode',
    label: 'opencode',
    where: 'Run in a terminal (it writes ~/.config/opencode/opencode.jsonc)',
    text: `opencode mcp add ${AGENT_SERVER_NAME} --url ${url} --header "Authorization=Bearer ${token}"`,
  }),
  screen: {
    waiting: [/Permission required/i, /\bAllow (once|always)\b/, /Select (a )?provider/i, /API key/i],
    working: [/esc (to )?interrupt/i],
  },
} as const satisfies ClientProfile;
