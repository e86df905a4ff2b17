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
    // it retries a limit by itself at the provider's retry-after ("[retrying in 2h 59m attempt #1]"): a typed
    // continue would only be queued as its next prompt
    continueText: null,
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
    // it retries a limit by itself, at the provider's retry-after (its status line counts down to it): the
    // provider's words, then "[retrying in 2h 59m attempt #1]" (a long line loses the wait where it wraps). Its
    // first frame, before the countdown starts, says "[retrying attempt #1]": read a second later, with the wait.
    // Its own plans: "Free usage exceeded, subscribe to Go", "… usage limit reached. It will reset in 2 hours 5
    // minutes." An overload it retries too ("Provider is overloaded") is not a limit.
    // Out of retries (5), or at an error it does not retry, the provider's words stay in its transcript: only
    // OpenAI's quota words (and opencode's own for them) say a limit there; others could be the model's prose.
    limited: [/\b(?:usage limit|rate[ _-]?limit|quota|too many requests|rate increased too quickly|free usage exceeded)\b.*\[retrying in\b/i, /\busage limit reached\. It will reset in\b/, /exceeded your current quota, please check your plan and billing details|Quota exceeded\. Check your plan and billing details/],
  },
} as const satisfies ClientProfile;
