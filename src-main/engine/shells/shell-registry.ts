import path from 'node:path';
import type { Caller } from '../../common/dto';
import { RoomError } from '../../common/errors';
import type { ShellView } from '../../common/methods/shells';
import type { EngineContext } from '../room/index';
import { isShellIdOfEpoch, procTags } from '../core/ids';
import { findTagged, killTree, type TaggedProcess } from '../process/process-tree';
import type { StageTerminal, StageTerminalHost } from '../terminal/stage-terminal';
import { watchedTerminal } from '../terminal/pty';
import { GrowthSignal } from '../core/growth-signal';
import { PtyShell, type ShellExit, type ShellHooks, type ShellViewer } from './pty-shell';
import { recordShellEnded, recordShellOpened } from './shell-events';
import { shellSpawnFor, type OpenShell } from './shell-launch';
import { attachViewer, type ShellAttachment, type Watermarks } from './live-attachment';
import { logLines, type LogLines } from './shell-log-lines';
import { viewOf } from './shell-view';

export type { ShellAttachment, Watermarks } from './live-attachment';
export type { OpenShell } from './shell-launch';

/** The key of ShellRegistry.changes. */
export const SHELLS_CHANGED = 'shells';

/**
 * The room's shells. They live in this process only (their opening and end are kept as events). Ids carry this
 * runner's epoch, so an id from before a restart is told apart from one that never existed.
 */
export class ShellRegistry {
  private readonly shells = new Map<string, PtyShell>();
  /** Closed shells' ids and owners: only the owner (or an operator) is told an id was closed. */
  private readonly closed = new Map<string, string>();
  /** Who is closing a live shell (shell_close), for its shell.ended event; gone once it ended. */
  private readonly closedBy = new Map<string, string>();
  private readonly epoch: string;
  /** Fired (key SHELLS_CHANGED) when a shell opens, ends, is closed or pruned (its opening and end are also events: shell-events.ts). */
  readonly changes = new GrowthSignal();

  constructor(
    private readonly ctx: EngineContext,
    private readonly defaultCwd: string,
  ) {
    this.epoch = ctx.ids.shellEpoch();
  }

  private get limits() {
    return this.ctx.limits;
  }

  private now(): string {
    return this.ctx.now();
  }

  /**
   * What the graphs runtime hands each tty stage to: the stage becomes a shell the person (and the graph's
   * owner) can watch and type into. Its lifetime is the stage's: tasks_cancel ends it, not shell_close.
   */
  stageTerminalHost(): StageTerminalHost {
    return { attach: (terminal) => this.adoptStage(terminal) };
  }

  private adoptStage(stage: StageTerminal): void {
    const id = this.ctx.ids.shellId(this.epoch);
    const session = new PtyShell(
      {
        id,
        name: `stage ${stage.taskId}#${stage.attempt}`,
        owner: stage.owner,
        file: 'stage',
        args: [stage.taskId],
        cwd: this.defaultCwd,
        env: {},
        cols: 120,
        rows: 32,
        tag: '',
        scrollbackBytes: this.limits.shellScrollbackBytes,
        scrollbackLines: this.limits.shellScrollbackLines,
        stage: stage.taskId,
      },
      this.now(),
      // the graphs runtime owns the PTY: the shell watches it and types into it, never frees it
      watchedTerminal(stage.terminal),
      this.stageHooks,
    );
    this.shells.set(id, session);
    this.changed();
  }

  private changed(): void {
    this.changes.fire(SHELLS_CHANGED);
  }

  /** What the registry hears of each shell shell_open made: one object for them all. */
  private readonly hooks: ShellHooks<PtyShell> = {
    listed: () => this.changed(),
    ended: (session) => {
      const by = this.closedBy.get(session.id) ?? null;
      this.closedBy.delete(session.id);
      recordShellEnded(this.ctx, session, by);
      this.pruneEnded();
    },
  };

  /** The same for a graph stage's: its size and condition are in the list too (a view watching it draws the PTY at that size). */
  private readonly stageHooks: ShellHooks<PtyShell> = {
    listed: (_session, what) => what !== 'status' && this.changed(),
    ended: () => this.pruneEnded(),
  };

  open(caller: Caller, options: OpenShell): PtyShell {
    const alive = [...this.shells.values()].filter((s) => s.alive && !s.spec.stage).length;
    if (alive >= this.limits.maxShells) {
      throw new RoomError('LIMIT_EXCEEDED', `the room already has ${this.limits.maxShells} shells open: close one with shell_close first`);
    }
    if (caller.role === 'agent') {
      const mine = [...this.shells.values()].filter((s) => s.alive && !s.spec.stage && s.spec.owner === caller.name).length;
      if (mine >= this.limits.maxShellsPerAgent) {
        throw new RoomError('LIMIT_EXCEEDED', `you (${caller.name}) have ${mine} shells open, your share of the room's ${this.limits.maxShells} (at most ${this.limits.maxShellsPerAgent} per agent): close one with shell_close first`);
      }
    }
    const spec = shellSpawnFor(this.ctx, this.defaultCwd, caller, () => this.ctx.ids.shellId(this.epoch), options);
    const id = spec.id;
    let session: PtyShell;
    try {
      session = new PtyShell(spec, this.now(), undefined, this.hooks);
    } catch (error) {
      throw new RoomError('INVALID_INPUT', `could not start ${spec.shownFile}: ${(error as Error).message}`);
    }
    session.stallMs = this.limits.viewerStallMs;
    this.shells.set(id, session);
    this.changed();
    recordShellOpened(this.ctx, session);
    return session;
  }

  /**
   * Shells that ended on their own stay readable (their output, their exit code) until closed, but only the
   * newest few: each holds its scrollback ring, and an agent that never calls shell_close must not grow memory.
   */
  private pruneEnded(): void {
    const ended = [...this.shells.values()].filter((s) => !s.alive);
    const keep = this.limits.keepEndedShells;
    for (const old of ended.slice(0, Math.max(0, ended.length - keep))) {
      this.shells.delete(old.id);
      old.screen.dispose();
      this.rememberClosed(old);
    }
    this.changed(); // a shell ended (and maybe an old one was let go)
  }

  /** The shell if the caller may use it; unknown and not-yours are the same answer. */
  get(caller: Caller, id: string): PtyShell {
    const session = this.shells.get(id);
    if (session && (session.spec.owner === caller.name || caller.capabilities.includes('operate'))) return session;
    const remote = session ? null : this.remoteSession?.(caller, id);
    if (remote) return remote;
    const closedOwner = this.closed.get(id);
    if (closedOwner !== undefined && (closedOwner === caller.name || caller.capabilities.includes('operate'))) {
      throw new RoomError('NOT_FOUND', `unknown shell ${id}: it was closed; open a new one with shell_open`);
    }
    if (isShellIdOfEpoch(id) && !isShellIdOfEpoch(id, this.epoch)) {
      throw new RoomError('NOT_FOUND', `unknown shell: the runner restarted (${id} ended with it); open a new one with shell_open`);
    }
    throw new RoomError('NOT_FOUND', `unknown shell ${id}: see shell_list`);
  }

  /**
   * A shell whose status the caller may wait on: its own (or any, for an operator), and any other participant's
   * terminal that is not a graph stage (one agent waits for another to finish or to ask the person). The caller
   * reads nothing of it but its state: shell_io answers a watcher with no output. A closed or unknown shell is
   * the same answer as get's.
   */
  watch(caller: Caller, id: string): PtyShell {
    const session = this.shells.get(id);
    if (session && !session.spec.stage) return session;
    return this.get(caller, id);
  }

  list(caller: Caller): ShellView[] {
    return [...this.shells.values()]
      .filter((s) => s.spec.owner === caller.name || caller.capabilities.includes('operate'))
      .map(viewOf);
  }

  async close(caller: Caller, id: string): Promise<{ exit: ShellExit; alreadyExited: boolean }> {
    const session = this.get(caller, id);
    if (session.spec.stage && session.alive) {
      throw new RoomError('CONFLICT', `shell ${id} is graph stage ${session.spec.stage}: end it with tasks_cancel (graphId and stageId)`);
    }
    if (session.spec.stage) {
      this.shells.delete(id);
      this.rememberClosed(session);
      this.changed();
      return { exit: session.exit ?? { exitCode: null, signal: null }, alreadyExited: true };
    }
    const alreadyExited = !session.alive;
    if (!alreadyExited) this.closedBy.set(id, caller.name);
    this.shells.delete(id);
    this.rememberClosed(session);
    this.changed();
    const exit = await session.close({ signals: ['SIGHUP', 'SIGTERM', 'SIGKILL'], graceMs: this.limits.shellCloseGraceMs });
    return { exit, alreadyExited };
  }

  /**
   * Closes `owner`'s shells (null: everyone's) that started in `folder` or below it (not graph stages: their graph
   * ends them): a completed handoff's assignee no longer writes in its worktree, and an ended handoff's worktree
   * keeps no shells (it is removed). `why` is what their end says. How many were closed.
   */
  async closeIn(owner: string | null, folder: string, why = 'the handoff was completed'): Promise<number> {
    const within = (cwd: string) => {
      const rel = path.relative(folder, cwd);
      return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
    };
    const mine = [...this.shells.values()].filter((s) => (owner === null || s.spec.owner === owner) && !s.spec.stage && within(s.spec.cwd));
    for (const s of mine) {
      if (s.alive) this.closedBy.set(s.id, `the room (${why})`);
      this.shells.delete(s.id);
      this.rememberClosed(s);
    }
    if (mine.length > 0) this.changed();
    await Promise.all(mine.map((s) => s.close({ signals: ['SIGHUP', 'SIGTERM', 'SIGKILL'], graceMs: this.limits.shellCloseGraceMs })));
    return mine.length;
  }

  /** The room's copy of a shell on one of its hosts (shells-feature.ts sets it, from the hosts feature), or null: not one. */
  remoteSession: ((caller: Caller, id: string) => PtyShell | null) | null = null;
  /** A shell on one of the room's hosts watched live (its copy here; typing goes to the host), or null: not one. */
  remoteAttach: ((caller: Caller, id: string, viewer: ShellViewer, from: number, watermarks?: Watermarks) => ShellAttachment | null) | null = null;

  /** A person watching a shell live, from a cursor, paced by acknowledgements. */
  attach(caller: Caller, id: string, viewer: ShellViewer, from: number, watermarks?: Watermarks): ShellAttachment {
    const remote = this.shells.has(id) ? null : this.remoteAttach?.(caller, id, viewer, from, watermarks);
    if (remote) return remote;
    return attachViewer(this.get(caller, id), caller, viewer, from, this.limits, () => this.now(), watermarks);
  }

  /**
   * Processes a previous runner's shells left behind when it died without closing them (kill -9: the PTY
   * hangup ends most, but not nohup or setsid children). Shells are volatile, so their leftovers are ended.
   */
  async reapOrphans(tagged?: readonly TaggedProcess[]): Promise<number> {
    const prefix = procTags.shellPrefix(this.ctx.room.id);
    // `tagged`: the room's processes as the engine's start found them (else looked up here)
    const orphans = tagged ? tagged.filter((p) => p.tag.startsWith(prefix)) : findTagged(prefix, { prefix: true });
    if (orphans.length === 0) return 0;
    await killTree({ tag: procTags.shellPrefix(this.ctx.room.id), prefix: true }, { signals: ['SIGTERM', 'SIGKILL'], graceMs: this.limits.shellCloseGraceMs });
    return orphans.length;
  }

  /**
   * shell-log://{shellId}: the shell's output as line records (ANSI stripped), `seq` = the byte offset where the
   * line starts, so a reader resumes from `nextSeq` with no gap and no duplicate. Lines still being written
   * wait for their newline (or the shell's exit). Output that left the scrollback is gone: `truncated`.
   */
  readLog(caller: Caller, id: string, fromSeq: number, limit: number): LogLines {
    const session = this.get(caller, id);
    return logLines(session.read(fromSeq, 256 * 1024), session.alive, limit);
  }

  /** Ends every shell with its tree (runner shutdown). */
  async closeAll(): Promise<void> {
    const all = [...this.shells.values()].filter((s) => !s.spec.stage);
    this.shells.clear();
    await Promise.all(all.map((s) => s.close({ signals: ['SIGHUP', 'SIGTERM', 'SIGKILL'], graceMs: 200 })));
  }

  private rememberClosed(session: PtyShell): void {
    this.closed.set(session.id, session.spec.owner);
    if (this.closed.size > 1000) this.closed.delete(this.closed.keys().next().value as string);
  }
}
