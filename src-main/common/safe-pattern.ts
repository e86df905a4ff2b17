/**
 * Patterns from agents run inside the runner (shell waits, graph readiness), on the JavaScript regex engine,
 * which backtracks: one pattern like `(a+)+$` on a long line can hold the whole runner for minutes. Such
 * patterns are refused up front: a quantified group that itself contains a quantifier, and backreferences.
 * Ordinary patterns (`ready on port \d+`, `^ERROR:`, `(foo|bar) done`) pass. A heuristic: overlapping
 * alternations under a repeat (`(a|aa)+`) still get through; the match windows are bounded as well.
 */
export function unsafePatternReason(source: string): string | null {
  if (/\\[1-9]|\\k</.test(source)) return 'backreferences are not allowed';
  // walk the groups: for each '(' … ')' followed by a quantifier, look for a quantifier inside
  const stack: { start: number; quantified: boolean }[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') {
      // skip a character class: quantifier characters inside it are literals
      for (i++; i < source.length && source[i] !== ']'; i++) if (source[i] === '\\') i++;
      continue;
    }
    if (c === '(') stack.push({ start: i, quantified: false });
    else if (c === ')') {
      const group = stack.pop();
      if (!group) continue;
      const next = source[i + 1];
      const groupQuantified = next === '+' || next === '*' || next === '{';
      if (groupQuantified && group.quantified) return 'a repeated group that itself repeats (like (a+)+) can take exponential time';
      const parent = stack.at(-1);
      if (parent && (group.quantified || groupQuantified)) parent.quantified = true;
    } else if (c === '+' || c === '*' || c === '{') {
      const top = stack.at(-1);
      if (top) top.quantified = true;
    }
  }
  return null;
}
