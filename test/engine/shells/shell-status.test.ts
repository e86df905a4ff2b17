import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ShellStatus } from '../../../src-main/common/methods/shells';
import { SHELL_STATUS_RULES } from '../../../src-main/common/shell-status-rules';
import { OscScanner, ShellStatusTracker } from '../../../src-main/engine/shells/shell-status';

const bytes = (s: string) => Buffer.from(s, 'utf8');

describe('the terminal signals a status reads', () => {
  it('a bare bell and OSC 9 / OSC 777 notifications are attention, OSC 0/2 a title, other OSCs (133 marks, 9;4 progress) nothing', () => {
    const seen: string[] = [];
    const scan = new OscScanner({ attention: (t) => seen.push(`attention:${t ?? ''}`), title: (t) => seen.push(`title:${t}`) });
    scan.feed(bytes('plain output\x07more'));
    scan.feed(bytes('\x1b]0;claude: editing\x07'));
    scan.feed(bytes('\x1b]9;Claude needs your permission to use Bash\x07'));
    scan.feed(bytes('\x1b]777;notify;Codex;Approve the command?\x1b\\'));
    scan.feed(bytes('\x1b]133;A;cr=1\x07\x1b]9;4;1;50\x07\x1b[31mred\x1b[0m'));
    expect(seen).toEqual(['attention:', 'title:claude: editing', 'attention:Claude needs your permission to use Bash', 'attention:Codex: Approve the command?']);
  });

  it('a sequence split across reads is still one sequence (its BEL is its end, not a bell)', () => {
    const seen: string[] = [];
    const scan = new OscScanner({ attention: (t) => seen.push(`attention:${t ?? ''}`), title: (t) => seen.push(`title:${t}`) });
    for (const part of ['\x1b', ']2;bu', 'ild\x07', '\x1b]9', ';done\x1b', '\\']) scan.feed(bytes(part));
    expect(seen).toEqual(['title:build', 'attention:done']);
  });
});

describe('a shell status', () => {
  function tracker(rules = SHELL_STATUS_RULES.default, screen: string[] = []) {
    let now = 1_000_000;
    const state = { alive: true, exitCode: null as number | null, lastOutputAt: now, lastInputAt: 0, screen };
    const changes: ShellStatus[] = [];
    const t = new ShellStatusTracker(
      { alive: () => state.alive, exitCode: () => state.exitCode, lastOutputAt: () => state.lastOutputAt, lastInputAt: () => state.lastInputAt, screen: () => state.screen },
      rules ?? { waiting: [] },
      (s) => changes.push(s),
      () => now,
    );
    const output = (text: string) => {
      state.lastOutputAt = now;
      t.scanner.feed(bytes(text));
      t.output();
    };
    return { t, state, changes, output, advance: (ms: number) => (now += ms), type: () => ((state.lastInputAt = now), t.typed()) };
  }

  it('working while output flows, idle once quiet, waiting on a bell until the person types, exited with its code', () => {
    const { t, state, output, advance, type } = tracker();
    output('compiling…\n');
    expect(t.status.state).toBe('working');
    advance(2_000);
    output(''); // any later look (the quiet timer's) decides from the clock
    advance(2_000);
    t.typed(); // re-decides; nothing was asked
    expect(t.status.state).toBe('idle');
    advance(10);
    output('\x1b]9;Approve the edit to src/app.ts?\x07');
    expect(t.status).toMatchObject({ state: 'waiting', reason: 'Approve the edit to src/app.ts?' });
    advance(5_000);
    output('');
    expect(t.status.state).toBe('waiting'); // still asking while nobody answered
    advance(10);
    type();
    expect(t.status.state).not.toBe('waiting');
    state.alive = false;
    state.exitCode = 3;
    t.exited();
    expect(t.status).toMatchObject({ state: 'exited', reason: 'exit code 3' });
  });

  it('a plain shell running a quiet command is busy, at its prompt idle: its marks tell them apart', () => {
    let running = true;
    let now = 1_000_000;
    const t = new ShellStatusTracker(
      { alive: () => true, exitCode: () => null, lastOutputAt: () => 1_000_000, lastInputAt: () => 0, screen: () => [], commandRunning: () => running },
      { waiting: [] },
      () => undefined,
      () => now,
    );
    now += 5_000; // quiet for long
    t.typed(); // any look re-decides
    expect(t.status).toMatchObject({ state: 'working', reason: 'a command is running' });
    running = false; // the prompt is back
    t.typed();
    expect(t.status.state).toBe('idle');
  });

  it("a quiet screen is read with its client's rules: a question is waiting, its own status line is working", () => {
    const asking = tracker(SHELL_STATUS_RULES['claude-code'], ['│ Do you want to proceed?', '│ ❯ 1. Yes']);
    asking.advance(2_000);
    asking.t.typed();
    expect(asking.t.status).toMatchObject({ state: 'waiting', reason: 'Do you want to proceed?' });
    const busy = tracker(SHELL_STATUS_RULES['claude-code'], ['✻ Thinking… (12s · esc to interrupt)']);
    busy.advance(2_000);
    busy.t.typed();
    expect(busy.t.status.state).toBe('working');
  });
});

describe('each client\'s rules on its real screens (captured from the real CLI by test/clients/agents-started.test.ts and prompts-live.test.ts)', () => {
  const dir = path.join(__dirname, 'fixtures', 'screens');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.txt'));
  it('there is a captured screen for each client that can be started without an account', () => {
    expect(new Set(files.map((f) => f.split('.')[0]))).toEqual(new Set(['claude-code', 'codex', 'gemini-cli', 'opencode']));
  });
  for (const file of files) {
    const [client, what, expected] = file.split('.') as [string, string, string];
    it(`${client}: its ${what} screen reads ${expected}`, () => {
      const lines = fs.readFileSync(path.join(dir, file), 'utf8').split('\n');
      let now = 5_000_000;
      const t = new ShellStatusTracker(
        { alive: () => true, exitCode: () => null, lastOutputAt: () => 1_000, lastInputAt: () => 0, screen: () => lines },
        SHELL_STATUS_RULES[client] ?? { waiting: [] },
        () => undefined,
        () => now,
      );
      now += 10;
      t.typed(); // a look once the output is quiet
      expect(t.status.state).toBe(expected);
    });
  }
});

describe('a client that keeps drawing while it asks (its screen read at a steady pace)', () => {
  function flowing(lines: () => string[]) {
    vi.useFakeTimers();
    let lastOutput = Date.now();
    const changes: string[] = [];
    const t = new ShellStatusTracker(
      { alive: () => true, exitCode: () => null, lastOutputAt: () => lastOutput, lastInputAt: () => 0, screen: lines },
      SHELL_STATUS_RULES['claude-code'] ?? { waiting: [] },
      (s) => changes.push(s.state),
      () => Date.now(),
    );
    /** A redraw every 100 ms (a blinking dot) for `ms`: the output is never quiet. */
    const drawFor = (ms: number) => {
      for (let at = 0; at < ms; at += 100) {
        vi.advanceTimersByTime(100);
        lastOutput = Date.now();
        t.output();
      }
    };
    return { t, changes, drawFor };
  }
  afterEach(() => vi.useRealTimers());

  it('a question on screen reads waiting within a look, and stays so while it is drawn', () => {
    const { t, changes, drawFor } = flowing(() => ['● Calling commonroom…', ' Do you want to proceed?', ' ❯ 1. Yes', '   2. No', ' Esc to cancel']);
    drawFor(700);
    expect(t.status).toMatchObject({ state: 'waiting', reason: 'Do you want to proceed?' });
    drawFor(3000);
    expect(t.status.state).toBe('waiting');
    expect(changes).toEqual(['waiting']);
    t.dispose();
  });

  it('beside its own "still working" line, or with no question, the flow reads working; typing clears a question until the next look', () => {
    let lines = ['✻ Thinking… (esc to interrupt)', 'Do you want to proceed?'];
    const { t, drawFor } = flowing(() => lines);
    drawFor(2000);
    expect(t.status.state).toBe('working');
    lines = ['Do you want to proceed?', '❯ 1. Yes'];
    drawFor(700);
    expect(t.status.state).toBe('waiting');
    t.typed();
    expect(t.status.state).toBe('working');
    lines = ['● room_info answered'];
    drawFor(2000);
    expect(t.status.state).toBe('working');
    t.dispose();
  });
});

describe('an answered question the CLI leaves on screen', () => {
  // Claude Code's real MCP permission screen (fixtures/screens/claude-code.mcp-permission.waiting.txt), as a CLI
  // that keeps its transcript shows it once answered: the question where it was, the tool's answer below it
  const asking = fs.readFileSync(path.join(__dirname, 'fixtures', 'screens', 'claude-code.mcp-permission.waiting.txt'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  const answeredBelow = [...asking, '', '● commonroom - room_info (MCP)', '  ⎿  {"schemaVersion": 7, …}', '', '● Done: the tool answered.', '', '❯ '];

  function quiet(lines: () => string[]) {
    let now = 5_000_000;
    let lastOutput = now;
    const t = new ShellStatusTracker(
      { alive: () => true, exitCode: () => null, lastOutputAt: () => lastOutput, lastInputAt: () => 0, screen: lines },
      SHELL_STATUS_RULES['claude-code'] ?? { waiting: [] },
      () => undefined,
      () => now,
    );
    /** Output, then quiet past the quiet time: the screen is read. */
    const settle = () => {
      lastOutput = now;
      t.output();
      now += 2_000;
      t.typed(''); // a look (typing nothing answers nothing)
      return t.status;
    };
    return { t, settle };
  }

  it('reads idle once answered (Enter), though its words are still on screen', () => {
    let lines = asking;
    const { t, settle } = quiet(() => lines);
    expect(settle()).toMatchObject({ state: 'waiting', reason: 'Do you want to proceed?' });
    t.typed('\r');
    lines = answeredBelow;
    expect(settle().state).toBe('idle');
    t.dispose();
  });

  it('answered, it reads working until its answer shows, never idle in between', () => {
    const { t, state, advance } = (() => {
      let now = 5_000_000;
      const st = { lastInputAt: 0, lastOutputAt: now };
      const tr = new ShellStatusTracker(
        { alive: () => true, exitCode: () => null, lastOutputAt: () => st.lastOutputAt, lastInputAt: () => st.lastInputAt, screen: () => asking },
        SHELL_STATUS_RULES['claude-code'] ?? { waiting: [] },
        () => undefined,
        () => now,
      );
      return { t: tr, state: st, advance: (ms: number) => (now += ms) };
    })();
    advance(2_000);
    t.typed('');
    expect(t.status.state).toBe('waiting');
    state.lastInputAt = advance(10);
    t.typed('\r');
    expect(t.status.state).toBe('working'); // the answer is being worked on, though nothing was drawn yet
    advance(2_000);
    t.typed('');
    expect(t.status.state).toBe('idle');
    t.dispose();
  });

  it('arrows moving in its menu answer nothing: still waiting', () => {
    const { t, settle } = quiet(() => asking);
    expect(settle().state).toBe('waiting');
    t.typed('\x1b[B');
    expect(settle().state).toBe('waiting');
    t.dispose();
  });

  it('the same question asked again (a second copy below the answered one) is waiting', () => {
    let lines = asking;
    const { t, settle } = quiet(() => lines);
    t.typed('1');
    lines = answeredBelow;
    expect(settle().state).toBe('idle');
    lines = [...answeredBelow, ...asking.slice(-6)];
    expect(settle()).toMatchObject({ state: 'waiting', reason: 'Do you want to proceed?' });
    t.dispose();
  });

  it('once off the screen it is forgotten: the same question shown again is waiting', () => {
    let lines = asking;
    const { t, settle } = quiet(() => lines);
    t.typed('\r');
    lines = ['● Done: the tool answered.', '❯ '];
    expect(settle().state).toBe('idle');
    lines = asking;
    expect(settle().state).toBe('waiting');
    t.dispose();
  });
});
