import { AGENT_ENV, AGENT_SERVER_NAME, bearer, json, type ClientProfile } from './types';
import { claudeCodeTelemetry } from './telemetry';

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
    telemetry: claudeCodeTelemetry,
    prompt: (text) => ['--', text],
    // -c/--continue: the most recent conversation in the current directory (a prompt after it is its next turn)
    resume: (args) => ['--continue', ...args],
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
  },
} as const satisfies ClientProfile;
