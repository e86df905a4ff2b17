/**
 * The engine as a door (mcp/, api/, bridge/, app/, server/) sees it: `call` for everything that changes the
 * room (authorised, validated and audited in one place), and a few narrow ports for what a call cannot carry:
 * task reads for the MCP task layer, a live shell's attachment and log for terminals, task-log reads, the
 * change feed, presence marks and the browser sign-ins. The Engine implements this; doors are typed against it
 * and may not import the Engine class (eslint.config.js), so a door cannot reach a registry's writing methods.
 */
import type { Capability } from '../common/capabilities';
import type { Caller } from '../common/dto';
import type { MethodName, MethodOutputs } from '../common/contract';
import type { Limits } from '../common/limits';
import type { TaskRecord } from '../common/task-record';
import type { CallContext } from './room/index';
import type { TaskService } from './tasks/index';
import type { TaskLogs } from './tasks/index';
import type { Presence } from './people/index';
import type { BrowserSignIns } from './people/index';
import type { EventBus } from './core/event-bus';
import type { ShellRegistry, ShellAttachment, Watermarks } from './shells/index';
import type { ShellExit, ShellViewer } from './shells/index';
import type { GrowthSignal } from './core/growth-signal';
import type { Room } from './room/index';
import type { AgentSandbox } from './process/agent-sandbox';

/** Task reads and change notices for the MCP task layer (cancelling and answering go through `call`). */
export type TaskReads = Pick<TaskService, 'get' | 'find' | 'list' | 'waitFor' | 'resultOf' | 'onChange' | 'canSee'>;

/** What a door may know of one live shell: where its bytes are, whether it ended, when it changes. */
export interface LiveShell {
  readonly ring: { readonly start: number; readonly end: number };
  readonly exit: ShellExit | null | undefined;
  onChange(listener: () => void): () => void;
}

/** The shells, read: one shell's state, its shell-log:// records, and the volatile "shells changed" signal. */
export interface ShellReads {
  get(caller: Caller, id: string): LiveShell;
  readLog: ShellRegistry['readLog'];
  readonly changes: Pick<GrowthSignal, 'on'>;
}

export type TaskLogReads = Pick<TaskLogs, 'read' | 'watch'>;
/** A door says who is connected, which session it used and what it called (volatile, never audited). */
export type PresenceMarks = Pick<Presence, 'connected' | 'used' | 'called' | 'changes'>;
export type ChangeFeed = Pick<EventBus, 'subscribe'>;
export type SignIns = Pick<BrowserSignIns, 'verify' | 'serveAt' | 'mintLink' | 'attach' | 'signIn'>;

export interface DoorEngine {
  readonly room: Pick<Room, 'location' | 'id' | 'readOnly' | 'now'>;
  readonly limits: Readonly<Limits>;
  /** The OS sandbox agents' shells and stages run in, in words. */
  readonly sandbox: Pick<AgentSandbox, 'describe'>;
  readonly tasks: TaskReads;
  readonly shells: ShellReads;
  readonly taskLogs: TaskLogReads;
  readonly presence: PresenceMarks;
  readonly bus: ChangeFeed;
  readonly uiSessions: SignIns;

  call<M extends MethodName>(caller: Caller, method: M, rawInput: unknown, call?: CallContext): Promise<MethodOutputs[M]>;
  callForTask<M extends MethodName>(caller: Caller, method: M, rawInput: unknown, call?: CallContext): Promise<{ output: MethodOutputs[M]; task: TaskRecord }>;
  /**
   * A person's live view of a shell: output from `from`, paced by acknowledgements; what they type and resize
   * goes to the PTY through it (checked as shell_io checks it; recorded in the audit log once per attachment).
   */
  attachShell(caller: Caller, shellId: string, viewer: ShellViewer, from: number, watermarks?: Watermarks): ShellAttachment;
  authenticate(token: string): Caller | null;
  /** The participant a forwarded Host header was made for (an agent started on a host), or null; absent: none. */
  forwardedHost?(host: string): string | null;
  operator(): Caller;
  participantAs(actor: Caller, name: string): Caller;
  can(caller: Caller, capability: Capability): boolean;
  methodsFor(caller: Caller): MethodName[];
  close(): Promise<void>;
}
