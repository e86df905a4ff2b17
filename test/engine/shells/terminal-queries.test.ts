/**
 * A program that asks its terminal something before it draws (Gemini CLI and opencode do: device attributes,
 * cursor position, mode reports) gets one answer from the room, watched or not: with no one watching it would
 * otherwise wait on a blank screen, and watched by several it must not be answered once per viewer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutTerminalReplies } from '../../../src-main/cli/terminal-replies';
import { shellBench, type ShellBench } from './helpers';

let bench: ShellBench;
beforeAll(async () => {
  bench = await shellBench();
});
afterAll(() => bench.close());

// asks for device attributes and the cursor's position, in raw mode as such programs do, then prints what came
// back, and whatever else arrives in the next second (a second answer would)
const ASKER = [
  'stty raw -echo',
  "printf 'ready\\r\\n'; sleep 0.3",
  "printf '\\033[c'; IFS= read -r -s -d c -t 5 da",
  "printf '\\033[3;7H\\033[6n'; IFS= read -r -s -d R -t 5 cpr",
  'IFS= read -r -s -t 1 -n 64 extra',
  'stty sane',
  `printf '\\nDA=%q CPR=%q EXTRA=%q\\n' "$da" "$cpr" "$extra"`,
  'sleep 30',
].join('; ');

async function askedAndAnswered(watchers: number): Promise<string> {
  const shell = await bench.open({ shell: '/bin/bash', args: ['--noprofile', '--norc', '-c', ASKER] });
  const detach: (() => void)[] = [];
  for (let i = 0; i < watchers; i++) {
    const a = bench.engine.shells.attach(bench.operator, shell.id, { onData: () => undefined }, 0);
    detach.push(() => a.detach());
  }
  try {
    const r = await bench.io({ shellId: shell.id, cursor: 'start', wait: { until: 'match', pattern: 'EXTRA=', timeoutMs: 15_000 } });
    expect(r.wait?.reason, r.output).toBe('matched');
    return /DA=.*/.exec(r.output)?.[0] ?? '';
  } finally {
    detach.forEach((d) => d());
    await bench.engine.call(bench.operator, 'shell_close', { shellId: shell.id });
  }
}

describe("a program's questions to its terminal", () => {
  it('are answered by the room when no one watches: device attributes and the cursor where the program put it', async () => {
    expect(await askedAndAnswered(0)).toBe("DA=$'\\E[?1;2' CPR=$'\\E[3;7' EXTRA=''");
  });

  it('are answered once, not once per viewer, while people watch', async () => {
    expect(await askedAndAnswered(2)).toBe("DA=$'\\E[?1;2' CPR=$'\\E[3;7' EXTRA=''");
  });
});

describe("ce shell attach drops its own terminal's replies from the keys it sends", () => {
  it('drops device attributes, mode and colour reports, and cursor reports that no key sends', () => {
    const replies = ['\x1b[?1;2c', '\x1b[>0;276;0c', '\x1b[?2026;2$y', '\x1b[?0u', '\x1b]11;rgb:0000/0000/0000\x1b\\', '\x1b]10;rgb:ffff/ffff/ffff\x07', '\x1bP>|xterm(390)\x1b\\', '\x1b[24;80R'];
    for (const reply of replies) expect(withoutTerminalReplies(`a${reply}b`), JSON.stringify(reply)).toBe('ab');
  });

  it("keeps the person's keys: arrows, function keys with modifiers (F3 with Shift looks like a cursor report), pastes", () => {
    const keys = ['\x1b[A', '\x1b[1;5C', '\x1b[1;2R', '\x1b[15~', '\x1bOP', '\x1b[200~echo hi\x1b[201~', 'plain text', '\x1b', '\x03'];
    for (const key of keys) expect(withoutTerminalReplies(key), JSON.stringify(key)).toBe(key);
  });
});
