/**
 * The renderer's one way to the engine, the same over Electron IPC and the browser's WebSocket (UiTransport).
 * Calls are contract methods made as the operator; events are hints from the one change feed; shell bytes come
 * through attachments paced by acknowledgements. When the link comes back after a drop, every attachment resumes
 * from the byte after the last one it received, and state listeners see 'open' again so stores re-read the
 * engine (events missed while down are never replayed: the engine's state is the truth).
 */
import type { MethodInput, MethodName, MethodOutputs } from '../../src-main/common/contract';
import type { EventView } from '../../src-main/common/handoff-dto';
import type { ServerMessage, UiError, UiTransport } from '../../src-main/common/ui-protocol';

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface Hello {
  operator: string;
  mcpUrl: string;
  room: string;
  version: string;
}

/** A refused or failed call, with the engine's stable code and its actionable message. */
export class EngineCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'EngineCallError';
  }
}

export interface ShellExitInfo {
  exitCode: number | null;
  signal: string | null;
}

/** What a terminal view hears from an attached shell. `ack` must be called once the bytes are rendered. */
export interface ShellSink {
  data(bytes: Uint8Array, truncated: boolean, ack: () => void): void;
  exit?(exit: ShellExitInfo): void;
  error?(error: UiError): void;
  /** Whether the PTY follows this view's size (the answer to a resize, or another view took the shell over). */
  driving?(driving: boolean): void;
}

export interface ShellAttachment {
  /**
   * Types into the shell through its attachment, in order (the room checks and audits it; a refusal comes back
   * as the sink's error). False when the link is down: nothing was sent.
   */
  write(text: string): boolean;
  /**
   * This view's size: the PTY follows it when this view drives the shell, or with `take` (driving handed to this
   * view); the sink's `driving` says which. False when the link is down.
   */
  resize(cols: number, rows: number, take?: boolean): boolean;
  detach(): void;
}

interface Attached {
  sink: ShellSink;
  /** The byte cursor just after the newest byte received (where a re-attach resumes). */
  next: number;
  /** Bumped on every (re)attach, so acks for frames of an earlier link are not counted against the new one. */
  generation: number;
  /** Acknowledged by the sink in this turn, not yet sent. */
  ackDue: number;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export class EngineClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly attached = new Map<string, Attached>();
  private readonly eventListeners = new Set<(event: EventView) => void>();
  private readonly stateListeners = new Set<(state: ConnectionState) => void>();
  private readonly shellsListeners = new Set<() => void>();
  private readonly presenceListeners = new Set<() => void>();
  private readonly helloListeners = new Set<(hello: Hello) => void>();
  private current: ConnectionState = 'connecting';
  private hello: Hello | null = null;
  private readonly unsubscribe: Array<() => void>;

  constructor(private readonly transport: UiTransport) {
    this.unsubscribe = [transport.onMessage((m) => this.receive(m)), transport.onState((s) => this.linkChanged(s))];
  }

  get state(): ConnectionState {
    return this.current;
  }

  get identity(): Hello | null {
    return this.hello;
  }

  /** Calls a contract method as the operator. Rejects with EngineCallError (code DISCONNECTED while the link is down). */
  call<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutputs[M]> {
    if (this.current !== 'open') {
      return Promise.reject(new EngineCallError('DISCONNECTED', 'not connected to the room: waiting for it to come back'));
    }
    const id = this.nextId++;
    return new Promise<MethodOutputs[M]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.transport.send({ t: 'call', id, method, input });
    });
  }

  /** The room's shells changed (a volatile hint: re-read shell_list). Returns an unsubscribe. */
  onShellsChanged(listener: () => void): () => void {
    this.shellsListeners.add(listener);
    return () => this.shellsListeners.delete(listener);
  }

  /** Who is connected, or their last call, changed (a volatile hint: re-read participant_activity). */
  onPresenceChanged(listener: () => void): () => void {
    this.presenceListeners.add(listener);
    return () => this.presenceListeners.delete(listener);
  }

  /** Committed events, as hints that something changed. Returns an unsubscribe. */
  on(listener: (event: EventView) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  onState(listener: (state: ConnectionState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  onHello(listener: (hello: Hello) => void): () => void {
    this.helloListeners.add(listener);
    return () => this.helloListeners.delete(listener);
  }

  /** Watches a shell from byte `from` (0: everything its scrollback still holds, with a truncation mark if it wrapped). */
  attachShell(shellId: string, sink: ShellSink, from = 0): ShellAttachment {
    if (this.attached.has(shellId) && this.current === 'open') this.transport.send({ t: 'shell.detach', shellId });
    const entry: Attached = { sink, next: from, generation: 0, ackDue: 0 };
    this.attached.set(shellId, entry);
    if (this.current === 'open') this.transport.send({ t: 'shell.attach', shellId, from });
    const live = () => this.attached.get(shellId) === entry && this.current === 'open';
    return {
      write: (text) => {
        if (!live()) return false;
        this.transport.send({ t: 'shell.input', shellId, text });
        return true;
      },
      resize: (cols, rows, take) => {
        if (!live()) return false;
        this.transport.send(take ? { t: 'shell.resize', shellId, cols, rows, take } : { t: 'shell.resize', shellId, cols, rows });
        return true;
      },
      detach: () => {
        if (this.attached.get(shellId) !== entry) return;
        this.attached.delete(shellId);
        if (this.current === 'open') this.transport.send({ t: 'shell.detach', shellId });
      },
    };
  }

  close(): void {
    for (const off of this.unsubscribe) off();
    this.failPending();
    this.transport.close();
    this.setState('closed');
  }

  private linkChanged(state: 'open' | 'reconnecting' | 'closed'): void {
    if (state !== 'open') {
      this.failPending();
      this.setState(state);
      return;
    }
    for (const [shellId, entry] of this.attached) {
      entry.generation++;
      this.transport.send({ t: 'shell.attach', shellId, from: entry.next });
    }
    this.setState('open');
  }

  private receive(message: ServerMessage): void {
    switch (message.t) {
      case 'hello':
        this.hello = { operator: message.operator, mcpUrl: message.mcpUrl, room: message.room, version: message.version };
        for (const l of [...this.helloListeners]) l(this.hello);
        return;
      case 'result': {
        const waiting = this.pending.get(message.id);
        if (!waiting) return;
        this.pending.delete(message.id);
        if (message.ok) waiting.resolve(message.value);
        else waiting.reject(new EngineCallError(message.error.code, message.error.message));
        return;
      }
      case 'event':
        for (const l of [...this.eventListeners]) l(message.event);
        return;
      case 'shells.changed':
        for (const l of [...this.shellsListeners]) l();
        return;
      case 'presence.changed':
        for (const l of [...this.presenceListeners]) l();
        return;
      case 'shell.data': {
        const entry = this.attached.get(message.shellId);
        if (!entry) return;
        const bytes = message.data;
        entry.next = message.cursor + bytes.length;
        const generation = entry.generation;
        let acked = false;
        entry.sink.data(bytes, message.truncated === true, () => {
          if (acked || generation !== entry.generation || this.attached.get(message.shellId) !== entry || this.current !== 'open') return;
          acked = true;
          this.ack(message.shellId, entry, bytes.length);
        });
        return;
      }
      case 'shell.exit':
        this.attached.get(message.shellId)?.sink.exit?.({ exitCode: message.exitCode, signal: message.signal });
        return;
      case 'shell.error':
        this.attached.get(message.shellId)?.sink.error?.(message.error);
        return;
      case 'shell.driving':
        this.attached.get(message.shellId)?.sink.driving?.(message.driving);
        return;
    }
  }

  /**
   * Acknowledgements of one turn go out as one message per shell (a terminal parsing a batch of frames acks them
   * all at once: one socket send each was 5 % of the page's time in a flood).
   */
  private ack(shellId: string, entry: Attached, bytes: number): void {
    const first = entry.ackDue === 0;
    entry.ackDue += bytes;
    if (!first) return;
    const generation = entry.generation;
    queueMicrotask(() => {
      const total = entry.ackDue;
      entry.ackDue = 0;
      if (generation !== entry.generation || this.attached.get(shellId) !== entry || this.current !== 'open') return;
      this.transport.send({ t: 'shell.ack', shellId, bytes: total });
    });
  }

  private failPending(): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) p.reject(new EngineCallError('DISCONNECTED', 'the link to the room dropped before it answered: try again once reconnected'));
  }

  private setState(state: ConnectionState): void {
    if (state === this.current) return;
    this.current = state;
    for (const l of [...this.stateListeners]) l(state);
  }
}
