import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { childProcess } from '../platform/child-process';
import { type FromHelper, HELPER_HIGH_WATER, HELPER_LOW_WATER, helperProgram, type ToHelper } from './spawner-helper';

/** How one stage process is started: the program, its arguments, folder and whole environment. */
export interface SpawnRequest {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Windows: the arguments are passed as written (a command line for cmd.exe). */
  verbatim: boolean;
}

/** What a started stage process reports, in this order: started or failed; output; its pipes closed; its exit. */
export interface SpawnEvents {
  /** It runs: its pid, and its start time as the process table writes it (null: read it from the table). */
  started(pid: number, startTime: string | null): void;
  /** It could not be started (no such program, a missing folder…): the reason, as Node words it. */
  failed(message: string): void;
  output(stream: 'stdout' | 'stderr', chunk: Buffer): void;
  /** Both of its pipes closed (it and whatever inherited them are done writing). */
  closed(): void;
  exited(code: number | null, signal: string | null): void;
  /** Its exit can no longer be seen (the spawner process ended): the caller ends its tree and says so. */
  lost(message: string): void;
}

/** Starts stage processes: in a small helper process where it can, else in this one. */
export interface StageSpawner {
  spawn(request: SpawnRequest, events: SpawnEvents): void;
  /** Ends the helper (its stages were ended before: the room is closing). */
  close(): void;
}

/**
 * The helper's young generation kept at 1 MiB a semi-space (16 MiB by default): a fork costs in proportion to the
 * forking process's memory, and with the default the helper roughly doubled in size over a room's first few
 * thousand stages, so every later stage paid more for its fork.
 */
const HELPER_FLAGS = ['--max-semi-space-size=1'];
/** After this many helpers ended unexpectedly, stages are started in the room's own process. */
const HELPER_FAILURES_TOLERATED = 3;

/** Starts a stage in this process: what the helper does, for where it cannot run. */
function spawnHere(request: SpawnRequest, events: SpawnEvents): void {
  let child: ChildProcess;
  try {
    child = childProcess().spawn(request.file, request.args, {
      cwd: request.cwd,
      env: request.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsVerbatimArguments: request.verbatim,
    });
  } catch (error) {
    events.failed((error as Error).message);
    return;
  }
  child.once('error', (error) => {
    if (child.pid === undefined) events.failed(error.message);
  });
  if (child.pid === undefined) return;
  events.started(child.pid, null);
  let open = 2;
  for (const [stream, pipe] of [['stdout', child.stdout], ['stderr', child.stderr]] as const) {
    pipe?.on('data', (chunk: Buffer) => events.output(stream, chunk));
    pipe?.on('close', () => {
      if (--open === 0) events.closed();
    });
  }
  child.once('exit', (code, signal) => events.exited(code, signal));
}

/** Starts every stage in this process (tests of the runner alone; a platform where the helper cannot run). */
export const inProcessSpawner: StageSpawner = { spawn: spawnHere, close: () => undefined };

/** A stage started through the helper, until both its exit and its pipes' close came; `pipes`: those still open here. */
interface Child {
  events: SpawnEvents;
  exited: boolean;
  closed: boolean;
  pipes: number;
}

/**
 * Starts stages through one helper process, started on the first stage and again after it ended; where it
 * cannot start (or kept ending), in this process.
 */
export class HelperSpawner implements StageSpawner {
  private helper: ChildProcess | undefined;
  /** Stages started through the helper until both their exit and their pipes' close came (in either order). */
  private readonly children = new Map<number, Child>();
  private nextId = 0;
  private failures = 0;
  private closed = false;

  spawn(request: SpawnRequest, events: SpawnEvents): void {
    const helper = this.closed || this.failures >= HELPER_FAILURES_TOLERATED ? undefined : this.ensureHelper();
    if (!helper) return spawnHere(request, events);
    const id = ++this.nextId;
    this.children.set(id, { events, exited: false, closed: false, pipes: 2 });
    const message: ToHelper = ['spawn', id, request.file, request.args, request.cwd, request.env, request.verbatim];
    try {
      helper.send(message);
    } catch {
      this.children.delete(id);
      return spawnHere(request, events);
    }
    this.holdOpen();
  }

  close(): void {
    this.closed = true;
    const helper = this.helper;
    this.helper = undefined;
    if (helper?.connected) helper.disconnect();
  }

  private ensureHelper(): ChildProcess | undefined {
    if (this.helper) return this.helper;
    let helper: ChildProcess;
    try {
      helper = childProcess().spawn(process.execPath, [...HELPER_FLAGS, '-e', `(${helperProgram.toString()})(${HELPER_HIGH_WATER}, ${HELPER_LOW_WATER})`], {
        // under Electron, process.execPath is the app: this runs it as plain Node
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', NODE_OPTIONS: '' },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        serialization: 'advanced',
        windowsHide: true,
      });
    } catch (error) {
      this.failures = HELPER_FAILURES_TOLERATED;
      console.error(`[graphs] the stage spawner could not start (${(error as Error).message}): stages start in the room's process`);
      return undefined;
    }
    this.helper = helper;
    helper.on('message', (m: FromHelper, handle: unknown) => {
      try {
        if (m.t === 'pipe') this.readPipe(m, handle as Socket | undefined);
        else this.receive(m);
      } catch (error) {
        // a failing listener must not break the channel every other stage's news comes through
        console.error(`[graphs] handling a stage process's ${m.t} failed: ${(error as Error).message}`);
      }
    });
    helper.once('error', () => undefined); // its exit says the rest
    helper.once('exit', (code, signal) => this.helperEnded(helper, code, signal));
    return helper;
  }

  /** A stage's pipe, handed over by the helper: read here as a child's own is. */
  private readPipe(m: Extract<FromHelper, { t: 'pipe' }>, pipe: Socket | undefined): void {
    const child = this.children.get(m.id);
    if (!pipe) return;
    if (!child) {
      pipe.destroy();
      return;
    }
    const stream = m.s === 'o' ? 'stdout' : 'stderr';
    pipe.on('data', (chunk: Buffer) => child.events.output(stream, chunk));
    pipe.on('error', () => undefined); // its close follows
    pipe.once('close', () => {
      if (--child.pipes === 0) this.receive({ t: 'closed', id: m.id });
    });
  }

  private receive(m: Exclude<FromHelper, { t: 'pipe' }>): void {
    const child = this.children.get(m.id);
    if (!child) return;
    switch (m.t) {
      case 'pid':
        child.events.started(m.pid, m.start);
        break;
      case 'fail':
        this.children.delete(m.id);
        child.events.failed(m.message);
        break;
      case 'out':
        child.events.output(m.s === 'o' ? 'stdout' : 'stderr', Buffer.from(m.d.buffer, m.d.byteOffset, m.d.byteLength));
        break;
      case 'closed':
        child.closed = true;
        if (child.exited) this.children.delete(m.id);
        child.events.closed();
        break;
      case 'exit':
        child.exited = true;
        if (child.closed) this.children.delete(m.id);
        child.events.exited(m.code, m.signal);
        break;
    }
    this.holdOpen();
  }

  /** The helper keeps the room's loop alive only while a stage it started runs (as a child process would). */
  private holdOpen(): void {
    const channel = this.helper?.channel;
    if (this.children.size > 0) {
      this.helper?.ref();
      channel?.ref();
    } else {
      this.helper?.unref();
      channel?.unref();
    }
  }

  private helperEnded(helper: ChildProcess, code: number | null, signal: string | null): void {
    if (this.helper === helper) this.helper = undefined;
    if (this.closed) return;
    this.failures++;
    const why = `the stage spawner process ended (${signal ?? `code ${code}`})`;
    console.error(`[graphs] ${why}: ${this.failures < HELPER_FAILURES_TOLERATED ? 'the next stage starts a new one' : "stages start in the room's process from now on"}`);
    const children = [...this.children.values()];
    this.children.clear();
    for (const c of children) {
      // one whose pid had not come yet may still have been started (its pid was on the way): it is lost too, and
      // its tree is looked for by its tag (reporting it never started left such a process running, unrecorded)
      if (!c.exited) c.events.lost(why);
      else c.events.closed(); // it exited; whatever it still wrote cannot come any more
    }
  }
}
