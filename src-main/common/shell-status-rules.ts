/**
 * How to read each agent CLI's screen when its terminal goes quiet: lines that mean it asks the person
 * (`waiting`: a permission, a choice, a sign-in) and lines that mean it is still at work though nothing moved
 * (`working`: its own "esc to interrupt" status line). Small data, one entry per client; each entry is tested
 * on screens captured from the real CLI (test/engine/shells/fixtures/screens/). Signals the terminal itself carries
 * (a bell, an OSC 9 or 777 notification) come first and need no rule.
 */
export interface ShellStatusRules {
  waiting: readonly RegExp[];
  working?: readonly RegExp[];
  /** How long without output reads as quiet (default 1.5 s). */
  quietMs?: number;
}

const NONE: ShellStatusRules = { waiting: [] };

export const SHELL_STATUS_RULES: Record<string, ShellStatusRules> = {
  default: NONE,
  'claude-code': {
    waiting: [
      /Do you want to (proceed|make this edit|create|allow|run)\b/,
      /^\s*❯\s*1\.\s*Yes\b/,
      /Choose the text style that looks best with your terminal/,
      /Select login method/,
      /Press Enter to (continue|retry)/,
    ],
    working: [/esc to interrupt/i],
  },
  codex: {
    waiting: [
      /Would you like to (run|make|apply)\b/,
      /Allow (command|Codex)\b/i,
      /Sign in with ChatGPT/,
      /Trust this folder\?/,
      /Press Enter to continue/,
      /^\s*[›>▌]\s*1\.\s*Yes\b/,
    ],
    working: [/esc to interrupt/i],
  },
  'gemini-cli': {
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
  opencode: {
    waiting: [/Permission required/i, /\bAllow (once|always)\b/, /Select (a )?provider/i, /API key/i],
    working: [/esc (to )?interrupt/i],
  },
};
