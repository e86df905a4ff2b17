import { CLAUDE_CODE } from './claude-code';
import { CODEX } from './codex';
import { COMMAND } from './command';
import { CLAUDE_DESKTOP } from './claude-desktop';
import { CURSOR } from './cursor';
import { GEMINI_CLI } from './gemini-cli';
import { OPENCODE } from './opencode';
import type { ClientProfile } from './types';

/**
 * Every client the room knows, in the order people see them (the New agent list, the snippets' tabs): one file
 * each, listed here once. What the room starts, what a person pastes and how a screen reads all come from here.
 */
export const CLIENTS = [CLAUDE_CODE, CODEX, GEMINI_CLI, OPENCODE, COMMAND, CLAUDE_DESKTOP, CURSOR] as const satisfies readonly ClientProfile[];

export * from './types';
