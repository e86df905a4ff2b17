import { parseResetTime } from './reset-time';

/**
 * Whether an agent's client stopped at a usage or rate limit: its screen read against its client's `limited`
 * rules (clients/<id>.ts, from the real CLIs' screens: test/fixtures/limit-screens/). A limit message stays in
 * the client's transcript after it went on, so a limit is a new copy of such a line on the screen (counted as
 * the status tracker counts questions), not the line still being there.
 */
export interface LimitSeen {
  /** The line that says it, as words. */
  text: string;
  /** When the client says the limit resets, or null: it did not say. */
  until: Date | null;
}

/**
 * What identifies a limit line across redraws: its first words. A narrower terminal wraps the line's end onto
 * the next row (its text then ends sooner), which is the same message, not a new one.
 */
export const limitKey = (text: string) => text.slice(0, 24);

/** The words after which a client gives its reset time, on the limit's line or the two below it (a long message wraps). */
const RESET_WORDS = /\b(?:will reset at|resets?(?: at| in)?|try again (?:at|in)|retry(?:ing)? (?:in|after)|available again (?:at|in))\s+(.+?)(?=\s+·|\.(?:\s|$)|$)/i;

export class LimitWatch {
  /** The limit lines on screen at the last look, with how many times each was there. */
  private seen = new Map<string, number>();

  constructor(private readonly rules: readonly RegExp[]) {}

  get reads(): boolean {
    return this.rules.length > 0;
  }

  /** One look at the screen: a limit line that was not there before (one more copy of it), or null. */
  look(lines: readonly string[], now: Date): LimitSeen | null {
    if (this.rules.length === 0) return null;
    const found = limitLines(this.rules, lines);
    let fresh: { index: number; text: string } | null = null;
    const counts = new Map<string, number>();
    for (const f of found) {
      const key = limitKey(f.text);
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      if (count > (this.seen.get(key) ?? 0)) fresh = f; // the newest new one (the lowest on screen)
    }
    this.seen = counts;
    if (!fresh) return null;
    return { text: fresh.text, until: resetOf(lines, fresh.index, now) };
  }
}

/**
 * The lines a rule reads as a limit, as words: without the box a TUI draws around them, opencode's spinner
 * (its ⬝ and ■ cells, drawn before the words and, a frame at a time, over a space between them) and what the TUI
 * shows further along the row after a wide gap (opencode's "esc interrupt").
 */
export function limitLines(rules: readonly RegExp[], lines: readonly string[]): { index: number; text: string }[] {
  const out: { index: number; text: string }[] = [];
  lines.forEach((line, index) => {
    if (!rules.some((r) => r.test(line))) return;
    const words = line.replace(/[⬝■]+/g, ' ').replace(/^[\s│┃║|●✕×!]+|[\s│┃║|]+$/g, '').split(/\s{6,}/)[0] as string;
    out.push({ index, text: words.slice(0, 200) });
  });
  return out;
}

/** The reset time the client gives on the limit's line or the two below it (joined: a long message wraps). */
export function resetOf(lines: readonly string[], index: number, now: Date): Date | null {
  const near = lines
    .slice(index, index + 3)
    .map((l) => l.replace(/^[\s│┃║|]+|[\s│┃║|]+$/g, ''))
    .join(' ');
  const words = RESET_WORDS.exec(near)?.[1];
  return words ? parseResetTime(words, now) : null;
}
