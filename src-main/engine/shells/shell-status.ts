import { SHELL_STATUS_RULES, type ShellStatusRules } from '../../common/shell-status-rules';
import type { ShellState, ShellStatus } from '../../common/methods/shells';

/**
 * What a terminal says about the program in it, from its own signals first: a bell (BEL outside any escape
 * sequence), a desktop notification (OSC 9, OSC 777;notify) and its title (OSC 0 / 2); then its screen (the
 * room's headless terminal), read against its client's rules when the output goes quiet; then quiet time.
 *
 *   exited   the process ended (with its code)
 *   waiting  it asks the person: a bell or a notification since the person last typed, or a screen its rules
 *            say is a question (a permission or input prompt)
 *   working  output within the last `quietMs`
 *   idle     quiet, and not asking
 *
 * Fed every output chunk (the PTY reads): it looks only for ESC and BEL bytes in it, so a flood costs one scan.
 */
const ESC = 0x1b;
const BEL = 0x07;
/** The longest OSC kept while it waits for its end (a title or a notification, never a payload). */
const MAX_OSC = 2048;

export interface StatusSignals {
  /** A bell or notification arrived (its text, if it had one). */
  attention(text: string | null): void;
  title(text: string): void;
}

/** Splits terminal output into the OSC sequences and bare bells this tracker cares about, across chunks. */
export class OscScanner {
  /** Inside ESC ] … : the bytes so far (null: not inside one). */
  private osc: number[] | null = null;
  /** The last byte was an ESC (outside an OSC: maybe one begins; inside: maybe its ST). */
  private afterEsc = false;

  constructor(private readonly signals: StatusSignals) {}

  feed(bytes: Uint8Array): void {
    // the common case: no ESC and no BEL in the chunk, and not inside a sequence
    if (this.osc === null && !this.afterEsc && bytes.indexOf(ESC) < 0 && bytes.indexOf(BEL) < 0) return;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i] as number;
      if (this.osc !== null) {
        if (this.afterEsc) {
          this.afterEsc = false;
          if (b === 0x5c) {
            this.endOsc(); // ESC \ (ST)
            continue;
          }
          // any other ESC abandons the OSC and starts a sequence of its own: read b as what follows that ESC
          this.osc = null;
          this.afterEsc = true;
        } else if (b === BEL) {
          this.endOsc();
          continue;
        } else if (b === ESC) {
          this.afterEsc = true;
          continue;
        } else {
          if (this.osc.length < MAX_OSC) this.osc.push(b);
          continue;
        }
      }
      if (this.afterEsc) {
        this.afterEsc = false;
        if (b === 0x5d) {
          this.osc = [];
          continue;
        }
      }
      if (b === ESC) this.afterEsc = true;
      else if (b === BEL) this.signals.attention(null);
    }
  }

  private endOsc(): void {
    const text = Buffer.from(this.osc ?? []).toString('utf8');
    this.osc = null;
    const semi = text.indexOf(';');
    const code = semi < 0 ? text : text.slice(0, semi);
    const rest = semi < 0 ? '' : text.slice(semi + 1);
    if (code === '0' || code === '2') this.signals.title(rest);
    else if (code === '9' && !/^\d+;/.test(rest)) this.signals.attention(rest || null); // 9;4;… is ConEmu progress
    else if (code === '777' && rest.startsWith('notify;')) this.signals.attention(rest.slice('notify;'.length).replace(';', ': ') || null);
  }
}

export interface StatusInputs {
  alive(): boolean;
  exitCode(): number | null;
  lastOutputAt(): number;
  lastInputAt(): number;
  /** The screen's last lines, read only when the output is quiet (the tracker asks when it needs them). */
  screen(): string[];
  /**
   * The shell's integration marks say a command runs (its last mark is a command's start, no prompt since):
   * a quiet `sleep` or `make` is busy, not idle. Absent: the shell has no marks (a stage, a sentinel shell).
   */
  commandRunning?(): boolean;
  /**
   * The running command is at rest, waiting for keys on this terminal (a REPL at its prompt, an editor): a quiet
   * command that reads idle, not busy. Absent or false: it is busy (a `sleep`, a build, a server).
   */
  waitsForKeys?(): boolean;
}

/** One shell's status, kept current by its output, its input and a quiet timer armed by output. */
export class ShellStatusTracker implements StatusSignals {
  readonly scanner = new OscScanner(this);
  private attentionAt = 0;
  private attentionText: string | null = null;
  private titleText: string | null = null;
  private current: ShellStatus;
  private timer: NodeJS.Timeout | undefined;
  /** While output flows: the screen's verdict at the last steady-pace read (null: none yet, or typed since). */
  private flowing: { state: ShellState; reason?: string } | null = null;
  private sampler: NodeJS.Timeout | undefined;
  private sampledAt = 0;
  /**
   * The questions on screen when the person last answered (Enter, Esc, a letter or digit), by line, with how
   * many times each was there: a question answered that the CLI leaves on screen (in its transcript above the
   * new output) is not asked again; one more copy of it is a new question. Forgotten once off the screen.
   */
  private answered: Map<string, number> | undefined;

  constructor(
    private readonly inputs: StatusInputs,
    private readonly rules: ShellStatusRules,
    private readonly onChange: (status: ShellStatus) => void,
    private readonly now: () => number = Date.now,
    private readonly quietMs = rules.quietMs ?? 1500,
    private readonly sampleMs = 500,
  ) {
    this.current = { state: 'working', since: new Date(now()).toISOString() };
  }

  get status(): ShellStatus {
    return this.current;
  }

  attention(text: string | null): void {
    this.attentionAt = this.now();
    this.attentionText = text;
    this.update();
  }

  title(text: string): void {
    this.titleText = text.slice(0, 200);
  }

  /** After output (the PTY read): working now; the quiet timer decides what comes after. */
  output(): void {
    this.update();
    this.arm();
    this.sample();
  }

  /**
   * The person (or an agent) typed `keys`: an answer clears "waiting" (the screen is read again at the next look),
   * and the questions on screen as they answered are answered (moving in a menu with the arrows answers nothing).
   */
  typed(keys?: string): void {
    if (keys !== undefined && answers(keys) && this.rules.waiting.length > 0) this.answered = questionsOn(this.rules.waiting, this.inputs.screen());
    this.attentionAt = 0;
    this.attentionText = null;
    this.flowing = null;
    this.update();
    this.arm();
  }

  exited(): void {
    this.stopTimers();
    this.update();
  }

  dispose(): void {
    this.stopTimers();
  }

  private stopTimers(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.sampler) clearTimeout(this.sampler);
    this.timer = undefined;
    this.sampler = undefined;
  }

  private hasRules(): boolean {
    return this.rules.waiting.length > 0 || (this.rules.working ?? []).length > 0;
  }

  /** What the client's rules read on its screen now: a question, its own "still working" line, or nothing. */
  private readScreen(): { state: ShellState; reason?: string; alsoWorking?: boolean } | null {
    const lines = this.inputs.screen();
    const busy = matchAny(this.rules.working ?? [], lines);
    const asking = this.unanswered(lines);
    if (asking) return { state: 'waiting', reason: asking, alsoWorking: busy !== null };
    if (busy) return { state: 'working', reason: busy };
    return null;
  }

  /** The first question on screen the person has not answered yet (one answered and still shown is not asked). */
  private unanswered(lines: string[]): string | null {
    const now = questionsOn(this.rules.waiting, lines);
    const answered = this.answered; // none until the first answer
    for (const [line, count] of answered ?? []) {
      const shown = now.get(line) ?? 0;
      if (shown === 0) answered?.delete(line);
      else answered?.set(line, Math.min(count, shown));
    }
    for (const [line, count] of now) if (count > (answered?.get(line) ?? 0)) return line;
    return null;
  }

  /**
   * While output flows, a client's screen is read at a steady pace (every `sampleMs`): the CLIs keep drawing
   * while they ask (a blinking dot, a title that blinks, empty redraws), so the quiet the rules otherwise wait for
   * may never come. A question on screen with no "still working" line beside it reads waiting at once.
   */
  private sample(): void {
    if (this.sampler || !this.hasRules() || this.rules.waiting.length === 0 || !this.inputs.alive()) return;
    const wait = Math.max(0, this.sampleMs - (this.now() - this.sampledAt));
    this.sampler = setTimeout(() => {
      this.sampler = undefined;
      this.sampledAt = this.now();
      const seen = this.readScreen();
      this.flowing = seen?.state === 'waiting' && !seen.alsoWorking ? { state: 'waiting', ...(seen.reason ? { reason: seen.reason } : {}) } : null;
      this.update();
    }, wait);
    this.sampler.unref();
  }

  /** The state now, from the signals (the screen only once the output is quiet). */
  private decide(): { state: ShellState; reason?: string } {
    if (!this.inputs.alive()) return { state: 'exited', reason: this.inputs.exitCode() === null ? 'ended' : `exit code ${this.inputs.exitCode()}` };
    if (this.attentionAt > this.inputs.lastInputAt() && this.attentionAt > 0) return { state: 'waiting', reason: this.attentionText ?? 'it rang the bell' };
    const quiet = this.now() - this.lastActivity() >= this.quietMs;
    if (!quiet) return this.flowing ?? { state: 'working' };
    // a plain shell (no client's rules): its marks tell a quiet command from a prompt
    if (!this.hasRules()) {
      if (!this.inputs.commandRunning?.() || this.inputs.waitsForKeys?.()) return { state: 'idle' };
      return { state: 'working', reason: 'a command is running' };
    }
    const seen = this.readScreen();
    return seen ? { state: seen.state, ...(seen.reason ? { reason: seen.reason } : {}) } : { state: 'idle' };
  }

  private update(): void {
    const next = this.decide();
    if (next.state === this.current.state && next.reason === this.current.reason) return;
    this.current = { state: next.state, since: new Date(this.now()).toISOString(), ...(next.reason ? { reason: next.reason } : {}), ...(this.titleText ? { title: this.titleText } : {}) };
    this.onChange(this.current);
  }

  /**
   * The last output or keys: a program that was just answered is at work on the answer (it has not drawn it yet),
   * so keys count as activity too, and an answered question never flashes idle before its work shows.
   */
  private lastActivity(): number {
    return Math.max(this.inputs.lastOutputAt(), this.inputs.lastInputAt());
  }

  /** Once, after the output has been quiet for quietMs (re-armed for what is left when more came meanwhile). */
  private arm(): void {
    if (this.timer || !this.inputs.alive()) return;
    const wait = Math.max(10, this.quietMs - (this.now() - this.lastActivity()));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.now() - this.lastActivity() < this.quietMs) return this.arm();
      this.update();
    }, wait);
    this.timer.unref();
  }
}

/** Keys that answer a question: Enter, a lone Esc, or a letter or digit (not arrows moving in its menu). */
function answers(keys: string): boolean {
  return /[\r\n]/.test(keys) || keys === '\x1b' || /^[\p{L}\p{N}]$/u.test(keys);
}

/** The lines on screen that a rule reads as a question (as matchAny describes them), each with its count. */
function questionsOn(patterns: readonly RegExp[], lines: string[]): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of lines) {
    const asked = matchAny(patterns, [line]);
    if (asked !== null) found.set(asked, (found.get(asked) ?? 0) + 1);
  }
  return found;
}

/** The first rule that matches one of the screen's lines, described as that line (trimmed). */
export function matchAny(patterns: readonly RegExp[], lines: string[]): string | null {
  for (const line of lines) {
    // the line as words: without the box a TUI draws around its dialogs
    for (const p of patterns) if (p.test(line)) return line.replace(/^[\s│┃║|]+|[\s│┃║|]+$/g, '').slice(0, 160);
  }
  return null;
}

export function rulesFor(client: string | null): ShellStatusRules {
  return (client !== null ? SHELL_STATUS_RULES[client] : undefined) ?? { waiting: [] };
}
