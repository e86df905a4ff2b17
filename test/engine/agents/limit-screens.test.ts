import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHELL_STATUS_RULES } from '../../../src-main/common/shell-status-rules';
import { LimitWatch } from '../../../src-main/engine/agents/limit-watch';

/**
 * Each client's `limited` rules read on real screens: the CLIs' own screens when a scripted model server
 * answered with their provider's documented limit errors (test/fixtures/limit-screens/, each with a .source
 * naming the CLI's version; capture.mjs there makes them again), and the texts of the limits the server cannot
 * provoke (a plan's limit needs a signed-in account) as the CLIs' bundled code words them. No ordinary screen
 * (test/engine/shells/fixtures/screens/: permission questions, answers, sign-in) reads as limited.
 */
const LIMITS = path.resolve(__dirname, '../../fixtures/limit-screens');
const SCREENS = path.resolve(__dirname, '../shells/fixtures/screens');
const now = new Date('2026-12-05T06:50:00Z');

function read(client: string, text: string): { text: string; until: string | null } | null {
  const seen = new LimitWatch(SHELL_STATUS_RULES[client]?.limited ?? []).look(text.split('\n'), now);
  return seen ? { text: seen.text, until: seen.until?.toISOString() ?? null } : null;
}

describe("the CLIs' limit screens", () => {
  it('Claude Code 2.1.197: a 429 on an API key, a usage-limit body and a rate limit (its real screens)', () => {
    expect(read('claude-code', fs.readFileSync(path.join(LIMITS, 'claude-code.usage-limit.txt'), 'utf8'))).toEqual({ text: 'API Error: Request rejected (429) · Claude AI usage limit reached', until: null });
    expect(read('claude-code', fs.readFileSync(path.join(LIMITS, 'claude-code.rate-limit.txt'), 'utf8'))?.text).toMatch(/^API Error: Request rejected \(429\) · Number of request tokens/);
  });

  it("Claude Code: its plan's limits, as its bundled code words them, with the reset", () => {
    expect(read('claude-code', "● You've hit your session limit · resets 3am (Europe/London)")).toEqual({ text: "You've hit your session limit · resets 3am (Europe/London)", until: '2026-12-06T03:00:00.000Z' });
    expect(read('claude-code', "  ⎿  You've hit your weekly limit · resets Dec 9, 5pm (UTC)")?.until).toBe('2026-12-09T17:00:00.000Z');
    expect(read('claude-code', "You've hit your Opus limit · resets 11:30pm (America/New_York)")?.until).toBe('2026-12-06T04:30:00.000Z');
    expect(read('claude-code', "You're out of usage credits · resets 3am (UTC)")?.until).toBe('2026-12-06T03:00:00.000Z');
    // a warning is not a limit
    expect(read('claude-code', "You've used 91% of your session limit · resets 3am (UTC)")).toBeNull();
    expect(read('claude-code', 'Approaching session limit · resets 3am (UTC)')).toBeNull();
  });

  it('Codex 0.171.0: its plan’s usage limit with the time to try again (wrapped), and a 429 it gave up on (its real screens)', () => {
    const usage = read('codex', fs.readFileSync(path.join(LIMITS, 'codex.usage-limit.txt'), 'utf8'));
    expect(usage?.text).toMatch(/^You’ve hit your usage limit\. Upgrade to Pro/);
    // "try again at 9:31 AM." on the line below (the screen's own clock at capture: 3 hours on)
    expect(usage?.until).not.toBeNull();
    expect(new Date(usage?.until as string).getMinutes()).toBe(31);
    expect(read('codex', fs.readFileSync(path.join(LIMITS, 'codex.rate-limit.txt'), 'utf8'))).toEqual({ text: 'exceeded retry limit, last status: 429 Too Many Requests', until: null });
  });

  it('Gemini CLI 0.61.0: a daily quota (its real screen: a dialog in a box)', () => {
    expect(read('gemini-cli', fs.readFileSync(path.join(LIMITS, 'gemini-cli.usage-limit.txt'), 'utf8'))).toEqual({ text: 'Usage limit reached for gemini-3.5-flash-lite.', until: null });
  });

  it('Gemini CLI: its quota messages, as its bundled code words them, with the reset', () => {
    expect(read('gemini-cli', '✕ Usage limit reached for gemini-2.5-pro.\nAccess resets at 3:00 AM UTC.\n/stats model for usage details')).toEqual({ text: 'Usage limit reached for gemini-2.5-pro.', until: '2026-12-06T03:00:00.000Z' });
    expect(read('gemini-cli', 'You have exhausted your daily quota on this model.')?.until).toBeNull();
    expect(read('gemini-cli', 'Rate limit exceeded. Try again later.')).not.toBeNull();
  });

  it('opencode 1.18.33: a limit it retries by itself at the provider’s retry-after, its wait counting down, and a quota it gave up on (its real screens)', () => {
    const screen = (name: string) => fs.readFileSync(path.join(LIMITS, `opencode.${name}.txt`), 'utf8');
    // Anthropic's 429 with retry-after: 10800: the room's until is when opencode itself retries
    expect(read('opencode', screen('usage-limit'))).toEqual({ text: 'Claude AI usage limit reached [retrying in 2h 59m attempt #1]', until: '2026-12-05T09:49:00.000Z' });
    // a long message it cuts short (the row then loses its wait where it wraps): a limit without a time
    expect(read('opencode', screen('rate-limit'))).toEqual({ text: 'Number of request tokens has exceeded your per-minute rate limit (https://docs.c… (click to expand) [retrying in', until: null });
    // an OpenAI-compatible provider's insufficient_quota, retried with backoff (its spinner drawn over a space)
    expect(read('opencode', screen('quota-limit'))).toEqual({ text: 'You exceeded your current quota, please check your plan and billing details. For… (click to expand) [retrying in 7s', until: '2026-12-05T06:50:07.000Z' });
    // and once it stopped retrying it (5 times): the provider's words in its transcript
    expect(read('opencode', screen('quota-gave-up'))?.text).toMatch(/^You exceeded your current quota, please check your plan and billing details\./);
  });

  it('opencode: its own plans’ limits and quota words, as its bundled code words them; an overload it retries is no limit', () => {
    expect(read('opencode', '   ⬝⬝■■■⬝⬝⬝ Free usage exceeded, subscribe to Go [retrying in ~2 days attempt #1]        esc interrupt')).toEqual({ text: 'Free usage exceeded, subscribe to Go [retrying in ~2 days attempt #1]', until: '2026-12-07T06:50:00.000Z' });
    expect(read('opencode', '  Weekly usage limit reached. It will reset in 2 hours 5 minutes. To continue using this model now, enable usage from your available balance')?.until).toBe('2026-12-05T08:55:00.000Z');
    expect(read('opencode', '  ┃  Quota exceeded. Check your plan and billing details.')).not.toBeNull();
    expect(read('opencode', '   ■■⬝⬝⬝⬝⬝⬝ Too Many Requests [retrying in 45s attempt #2]')?.until).toBe('2026-12-05T06:50:45.000Z');
    expect(read('opencode', '   ■■⬝⬝⬝⬝⬝⬝ Provider is overloaded [retrying in 4s attempt #2]        esc interrupt')).toBeNull();
    // its first frame, before its countdown starts: read a second later, with the wait
    expect(read('opencode', '   ■■⬝⬝⬝⬝⬝⬝ Claude AI usage limit reached [retrying attempt #1]        esc interrupt')).toBeNull();
    // the model's own words about limits are not a limit
    expect(read('opencode', '  ┃  I kept the batch small so the API rate limit is not reached.')).toBeNull();
  });

  it('opencode: its countdown and spinner redraw the same limit line, which is one limit', () => {
    const watch = new LimitWatch(SHELL_STATUS_RULES.opencode?.limited ?? []);
    expect(watch.look(['  ┃  Say hello', '   ⬝⬝⬝⬝⬝■■■ Claude AI usage limit reached [retrying in 2h 59m attempt #1]'], now)).not.toBeNull();
    expect(watch.look(['  ┃  Say hello', '   ■■■⬝⬝⬝⬝⬝ Claude AI usage limit reached [retrying in 2h 58m attempt #1]'], now)).toBeNull();
    expect(watch.look(['  ┃  Say hello', '   ■You⬝exceeded your current quota, please check your plan and billing details. For… (click to expand) [retrying in 7s'], now)).not.toBeNull();
    expect(watch.look(['  ┃  Say hello', '   ⬝You exceeded your current quota, please check your plan and billing details. For… (click to expand) [retrying in 6s'], now)).toBeNull();
  });

  it('reads no ordinary screen of theirs as limited', () => {
    for (const file of fs.readdirSync(SCREENS)) {
      const client = file.split('.')[0] as string;
      expect(read(client, fs.readFileSync(path.join(SCREENS, file), 'utf8')), file).toBeNull();
    }
  });

  it('reads a limit line that stays on screen once, and a new copy of it again', () => {
    const watch = new LimitWatch(SHELL_STATUS_RULES['claude-code']?.limited ?? []);
    const line = "● You've hit your session limit · resets 3am (UTC)";
    expect(watch.look(['❯ go on', line], now)).not.toBeNull();
    expect(watch.look(['❯ go on', line, '❯ continue'], now)).toBeNull();
    expect(watch.look([line, '❯ continue', line], now)).not.toBeNull();
    // a narrower terminal wraps its end onto the next row: the same message
    expect(watch.look(["● You've hit your session limit · resets 3", 'am (UTC)', '❯ continue', "● You've hit your session limit · resets 3", 'am (UTC)'], now)).toBeNull();
  });
});
