import { ScrollbackRing, type RingRead, type RingTextRead } from './scrollback-ring';
import { killTree, processStartTime, type KillPlan, type ProcessIdentity } from '../process/process-tree';
import { spawnTerminal, type Terminal, type TerminalExit } from '../terminal/pty';
import { ScreenMirror } from '../terminal/screen-mirror';
import { ShellMarks } from './shell-marks';
import { rulesFor, ShellStatusTracker } from './shell-status';
import type { ShellCondition, ShellStatus } from '../../common/methods/shells';
import { ShellViewers, type ShellViewer, type ViewerState } from './shell-viewers';
import { Listeners } from './listeners';
import { ShellStatusInputs } from './status-inputs';
import type { ActiveRun, InputRecord, ShellHooks, ShellSpawn } from './shell-spawn';

export type { ShellViewer } from './shell-viewers';
export type { ActiveRun, InputRecord, ShellHooks, ShellSpawn } from './shell-spawn';

export type ShellExit = TerminalExit;

/**
 * One live PTY: its process tree, its scrollback ring, the waiters and viewers that follow its output.
 * Output goes into the ring only (bounded); every consumer reads from the ring at its own cursor, so a slow
 * consumer never makes the runner hold more than the ring.
 */
export class PtyShell {
  /**
   * What it runs and who and what it is, without the environment it was spawned with: that is the child's (~40
   * variables, its integration's prompt strings among them) and nothing reads it after the spawn.
   */
  readonly spec: Omit<ShellSpawn, 'env'>;
  readonly ring: ScrollbackRing;
  readonly startedAt: string;
  readonly process: ProcessIdentity;
  exit: ShellExit | null = null;
  cols: number;
  rows: number;
  /** The newest inputs and who typed them (people and agents share shells). */
  readonly inputs: InputRecord[] = [];
  /** The terminal's screen, fed the same bytes as the ring. */
  readonly screen: ScreenMirror;
  /** Prompt and command marks of this shell's integration (null without one: a graph stage). */
  readonly marks: ShellMarks | null;
  /** What shell_run is waiting on in this shell. */
  activeRun: ActiveRun | null = null;
  private readonly term: Terminal;
  private readonly changeListeners = new Listeners();
  /** Who watches live, and the hold their backlog puts on the PTY (shell-viewers.ts). */
  private readonly viewers: ShellViewers;
  /** What waitExit hands out, made on the first call (most shells are never waited on that way). */
  private exited: Promise<ShellExit> | undefined;
  private resolveExit: ((exit: ShellExit) => void) | undefined;
  lastOutputAt = Date.now();
  lastInputAt = 0;
  /** What the program in it is doing, from its terminal (shell-status.ts). */
  readonly status: ShellStatusTracker;
  /** Stalled or limited, as the room's watch of the agent in it says (engine/agents/agent-watch.ts); null: neither. */
  condition: ShellCondition | null = null;
  private readonly statusListeners = new Listeners<[ShellStatus]>();
  private readonly resizeListeners = new Listeners();
  /**
   * The live view whose size the PTY follows, or null: none does (the owner sizes it with shell_io, or nobody
   * drives it until a view claims it). Every other view shows the PTY at its size.
   */
  private driver: ViewerState | null = null;

  constructor(
    spec: ShellSpawn,
    now: string,
    /** A terminal someone else owns (a tty graph stage's); by default the session spawns its own. */
    adopted?: Terminal,
    /** What its registry hears of it (one object for all its shells). */
    private readonly hooks?: ShellHooks<PtyShell>,
  ) {
    const { env: _spawnedWith, ...kept } = spec;
    this.spec = kept;
    // the line cap never drops output a live viewer has yet to read (the byte cap holds the PTY before it)
    this.ring = new ScrollbackRing(spec.scrollbackBytes, spec.scrollbackLines ?? Infinity, () => this.viewers.oldestCursor());
    this.cols = spec.cols;
    this.rows = spec.rows;
    this.startedAt = now;
    const rules = rulesFor(spec.agent?.client ?? null);
    // a client whose status rules read its screen keeps its emulator; any other shell has one only while needed
    const readsScreen = rules.waiting.length > 0 || (rules.working ?? []).length > 0;
    // a program that asks its terminal something (Gemini CLI and opencode ask for device attributes and wait
    // for the answer before they draw) is answered once, by the room's own screen, whoever watches: viewers
    // answer nothing (the Terminals screen silences its xterm, ce shell attach drops its terminal's replies),
    // so an agent started with no one watching does not sit on a blank screen, nor one watched twice get two
    const reply = (answer: string) => this.alive && this.term.write(answer);
    this.screen = new ScreenMirror(this.ring, spec.cols, spec.rows, spec.screenScrollbackLines ?? 0, { live: readsScreen, reply });
    this.marks = spec.integration ? new ShellMarks(spec.integration.nonce) : null;
    this.status = new ShellStatusTracker(new ShellStatusInputs(this), rules, (status) => {
      this.statusListeners.emit(status);
      this.hooks?.listed(this, 'status');
    });
    this.term = adopted ?? spawnTerminal(spec);
    this.process = { pid: this.term.pid, startTime: processStartTime(this.term.pid) ?? '' };
    this.viewers = new ShellViewers(this.ring, this.term, () => this.alive);
    // bigger chunks in a flood (pty.ts), but never more than half the margin the viewers' backpressure keeps, so
    // a viewer being held back cannot be overrun by one chunk
    this.term.readAhead?.(Math.min(64 * 1024, Math.floor(this.viewers.holdMargin() / 2)));
    // runs for every PTY read (≈ 4 KiB each on Linux, thousands per second in a flood): nothing here allocates
    // or scans more than the chunk unless a viewer or waiter is there to need it
    this.term.onData((bytes) => {
      this.marks?.feed(bytes, this.ring.end);
      this.ring.append(bytes);
      const now = Date.now();
      this.screen.grew(bytes, now);
      this.lastOutputAt = now;
      this.status.scanner.feed(bytes);
      this.status.output();
      this.viewers.grew();
      this.notify();
    }, { borrow: true }); // the ring and the marks copy what they keep
    this.term.onExit((exit) => this.ended(exit));
  }

  private ended(exit: ShellExit): void {
    this.exit = exit;
    this.status.exited();
    // the child is gone: free the PTY now (its output is already in the ring), not when someone closes it
    this.viewers.release();
    this.destroyTerm();
    this.resolveExit?.(exit);
    this.viewers.exited(exit);
    this.notify();
    this.hooks?.ended(this);
  }

  get id(): string {
    return this.spec.id;
  }

  get alive(): boolean {
    return this.exit === null;
  }

  write(bytes: string, by: string, at: string): void {
    if (!this.alive) return;
    this.term.write(bytes);
    this.lastInputAt = Date.now();
    this.status.typed(bytes);
    this.inputs.push({ at, by, bytes: Buffer.byteLength(bytes) });
    if (this.inputs.length > 100) this.inputs.splice(0, this.inputs.length - 100);
  }

  /**
   * Resizes the PTY for a call (shell_io's resize: the owner, or a person taking it over with `ce shell attach
   * --take-over`): no live view drives it any more, and the one that did is told.
   */
  resize(cols: number, rows: number): void {
    if (!this.alive) return;
    this.handDriving(null);
    this.applySize(cols, rows);
  }

  /**
   * A live view's size. It becomes the PTY's size when the view drives the shell, when it `takes` the driving
   * over (the person's "Fit to panel"), or when nobody drives and the view `mayClaim` it (the person's own
   * shell); otherwise nothing changes and the view shows the PTY at the driver's size. Returns whether it drives.
   */
  viewerResize(state: ViewerState, cols: number, rows: number, how: { take: boolean; mayClaim: boolean }): boolean {
    if (!this.alive) return false;
    if (this.driver !== state && !how.take && !(this.driver === null && how.mayClaim)) return false;
    this.handDriving(state);
    this.applySize(cols, rows);
    return true;
  }

  /** Whether this live view sizes the PTY. */
  drives(state: ViewerState): boolean {
    return this.driver === state;
  }

  private handDriving(state: ViewerState | null): void {
    const before = this.driver;
    if (before === state) return;
    this.driver = state;
    before?.viewer.onDriving?.(false);
  }

  private applySize(cols: number, rows: number): void {
    const changed = cols !== this.cols || rows !== this.rows;
    this.term.resize(cols, rows);
    this.screen.resize(cols, rows);
    this.cols = cols;
    this.rows = rows;
    // its size is part of what the list shows (a viewer's header says it): said like a change of status
    if (changed) this.sizeOrConditionChanged('size');
  }

  private sizeOrConditionChanged(what: 'size' | 'condition'): void {
    this.resizeListeners.emit();
    this.hooks?.listed(this, what);
  }

  /** Called after the shell's size changed (a resize by its owner or by the person who took it over), or its condition. */
  onResize(listener: () => void): () => void {
    return this.resizeListeners.add(listener);
  }

  read(cursor: number, maxBytes: number): RingRead {
    return this.ring.read(cursor, maxBytes);
  }

  /** `read`, decoded (without copying the bytes first). */
  readText(cursor: number, maxBytes: number): RingTextRead {
    return this.ring.readText(cursor, maxBytes);
  }

  /** Called on every output and on exit; returns an unsubscribe. */
  onChange(listener: () => void): () => void {
    return this.changeListeners.add(listener);
  }

  /** The agent watch's verdict (its listeners: the lists that show it, as they show a change of status). */
  setCondition(condition: ShellCondition | null): void {
    if (JSON.stringify(condition) === JSON.stringify(this.condition)) return;
    this.condition = condition;
    this.sizeOrConditionChanged('condition');
  }

  /** Hears each change of the status; returns an unsubscribe. */
  onStatusChange(listener: (status: ShellStatus) => void): () => void {
    return this.statusListeners.add(listener);
  }

  waitExit(): Promise<ShellExit> {
    this.exited ??= this.exit ? Promise.resolve(this.exit) : new Promise<ShellExit>((resolve) => (this.resolveExit = resolve));
    return this.exited;
  }

  /**
   * Ends the whole tree: SIGHUP (what closing a terminal sends), then SIGTERM, then SIGKILL, each after a
   * grace period, including descendants that left the group (found by tag). Then frees the PTY.
   */
  async close(plan: KillPlan): Promise<ShellExit> {
    if (this.alive) {
      await killTree({ tag: this.spec.tag, pgid: this.process.pid, root: this.process }, plan);
    } else {
      // the shell is gone, but what it left behind (a nohup child, a daemon) still carries its tag
      await killTree({ tag: this.spec.tag }, plan);
    }
    const exit = await Promise.race([this.waitExit(), new Promise<null>((r) => setTimeout(() => r(null), 2_000))]);
    this.destroyTerm();
    this.screen.dispose();
    return exit ?? this.exit ?? { exitCode: null, signal: 'unknown' };
  }

  /** How long a viewer that stopped acknowledging may still hold the PTY back. */
  set stallMs(ms: number) {
    this.viewers.stallMs = ms;
  }

  attach(viewer: ShellViewer, from: number, high: number, low: number, resends = false): ViewerState {
    return this.viewers.attach(viewer, from, high, low, resends);
  }

  /** What may still arrive after the viewers hold the terminal (a host's shell copied here: its stream's window). */
  set holdMargin(bytes: number) {
    this.viewers.margin = bytes;
  }

  detach(state: ViewerState): void {
    // the view that drove leaves: the PTY keeps its size until a view claims it or takes it over
    if (this.driver === state) this.driver = null;
    this.viewers.detach(state);
  }

  /** The viewer processed `bytes`: below the low watermark it is fed again. */
  ack(state: ViewerState, bytes: number): void {
    this.viewers.ack(state, bytes);
  }

  private notify(): void {
    this.changeListeners.emit();
  }

  private destroyTerm(): void {
    this.term.destroy();
  }
}
