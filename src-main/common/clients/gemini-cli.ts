import { AGENT_ENV, AGENT_SERVER_NAME, bearer, json, type ClientProfile } from './types';
import { geminiTelemetry } from './telemetry';

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
    telemetry: geminiTelemetry,
    prompt: (text) => [`--prompt-interactive=${text}`],
    // -r/--resume latest: the project's most recent session
    resume: (args) => ['--resume=latest', ...args],
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
  },
} as const satisfies ClientProfile;
