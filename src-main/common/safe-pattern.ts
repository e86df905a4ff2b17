import type { RE2JS } from 're2js';

type Re2 = typeof RE2JS;
let re2: Re2 | undefined;
/**
 * re2js, loaded on the first pattern compiled rather than when the room process starts (~18 ms of CPU before
 * the first answer, for a room that may never match a pattern). Patterns run only where Node runs (the room
 * process, the CLI, tests): through Node's own module loader, which common/ reaches without importing Node.
 */
function re2js(): Re2 {
  if (re2) return re2;
  const node = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process;
  const loader = node?.getBuiltinModule?.('node:module') as { createRequire(from: string): (id: string) => unknown } | undefined;
  if (!loader) throw new PatternError('agent patterns are matched only in the room process');
  re2 = (loader.createRequire((import.meta as { url: string }).url)('re2js') as { RE2JS: Re2 }).RE2JS;
  return re2;
}

/**
 * Patterns from agents (shell waits and stop patterns, graph readiness) run inside the runner. They are matched
 * with RE2 (re2js, pure JavaScript), whose time is linear in the text: no pattern can hold the event loop the
 * way a backtracking engine can (`(a|a)*b` on 30 characters takes minutes there). RE2 has no backreferences and
 * no lookaround; those are refused with a message that says so.
 */
export const AGENT_PATTERN_SYNTAX =
  'Patterns use RE2 syntax (linear-time): classes, alternation, groups, (?:…), (?<name>…), repeats up to {1000}, ' +
  '^ $ \\b, (?i) flags; no backreferences (\\1, \\k<name>) and no lookaround ((?=, (?!, (?<=, (?<!).';

/** A compiled agent pattern. `find` gives the first match in `text`, or null. */
export interface AgentPattern {
  readonly source: string;
  find(text: string): { index: number; text: string } | null;
}

export class PatternError extends Error {}

function unsupportedSyntax(source: string): string | null {
  if (/\\[1-9]|\\k</.test(source)) return 'backreferences (\\1, \\k<name>) are not supported';
  if (/\(\?<[=!]/.test(source)) return 'lookbehind ((?<=, (?<!) is not supported';
  if (/\(\?[=!]/.test(source)) return 'lookahead ((?=, (?!) is not supported';
  if (/\(\?>/.test(source)) return 'atomic groups ((?>…)) are not supported';
  return null;
}

/**
 * Compiles an agent's pattern with RE2, `multiline` making ^ and $ match at line ends. Throws PatternError
 * naming what is wrong (the callers turn it into INVALID_INPUT).
 */
export function compileAgentPattern(source: string, options: { multiline?: boolean } = {}): AgentPattern {
  const unsupported = unsupportedSyntax(source);
  if (unsupported) throw new PatternError(`pattern ${JSON.stringify(source.slice(0, 100))}: ${unsupported} (RE2 syntax)`);
  let re: RE2JS;
  try {
    const RE2 = re2js();
    re = RE2.compile(source, options.multiline ? RE2.MULTILINE : 0);
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : 'invalid';
    throw new PatternError(`pattern ${JSON.stringify(source.slice(0, 100))} is not valid RE2 syntax: ${reason}`);
  }
  return {
    source,
    find(text) {
      const m = re.matcher(text);
      if (!m.find()) return null;
      return { index: m.start(), text: m.group() ?? '' };
    },
  };
}

/** Why an agent pattern cannot be used, or null when it can. */
export function agentPatternProblem(source: string): string | null {
  try {
    compileAgentPattern(source);
    return null;
  } catch (error) {
    return error instanceof PatternError ? error.message : 'invalid pattern';
  }
}
