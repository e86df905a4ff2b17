import { isMethodName } from '../common/contract';
import { toPublicError } from '../common/errors';
import { RUNNER_VERSION } from '../common/version';
import { SHELL_FRAME_MS, type ClientMessage, type ServerMessage, type UiError } from '../common/ui-protocol';
import type { DoorEngine } from '../engine/index';
import { parseClientMessage } from './ui-messages';
import { ShellStream } from './ui-shell-stream';
import { PRESENCE_CHANGED, SHELLS_CHANGED } from '../engine/index';

export interface UiSessionOptions {
  /** The MCP endpoint agents connect to (shown by the UI). */
  mcpUrl: string;
  frameMs?: number;
  /** Calls one connection may have running at once (a long shell wait counts). */
  maxCallsInFlight?: number;
  /** Shells one connection may watch at once. */
  maxAttached?: number;
}

/**
 * One UI connection (an Electron window over IPC, or a browser tab over the WebSocket), independent of its
 * transport. It acts as the operator: calls go through `engine.call` (capabilities and the contract's input
 * schemas checked there), events come from the one change feed, shell output from the shells' rings.
 */
export class UiSession {
  private readonly streams = new Map<string, ShellStream>();
  private unsubscribe: (() => void) | undefined;
  private callsInFlight = 0;
  private closed = false;
  private readonly frameMs: number;
  private readonly maxCalls: number;
  private readonly maxAttached: number;
  /** Largest batch of shell output this session held at once (all shells): bounded by the watermarks. */
  maxPendingBytes = 0;

  constructor(
    private readonly engine: DoorEngine,
    /**
     * Sends one message. For a `shell.data` message the transport calls `sent` once it no longer holds the
     * message's bytes (written to the socket, or copied), so its buffer can carry the next frame; it need not.
     */
    private readonly transmit: (message: ServerMessage, sent?: () => void) => void,
    private readonly options: UiSessionOptions,
  ) {
    this.frameMs = options.frameMs ?? SHELL_FRAME_MS;
    this.maxCalls = options.maxCallsInFlight ?? 64;
    this.maxAttached = options.maxAttached ?? 64;
  }

  /** Says hello and starts forwarding committed events. */
  open(): void {
    const room = this.engine.room;
    this.send({ t: 'hello', operator: this.engine.operator().name, mcpUrl: this.options.mcpUrl, room: room.location.markdownPath, version: RUNNER_VERSION });
    const offEvents = this.engine.bus.subscribe((event) => this.send({ t: 'event', event }));
    // shells are volatile (no rows, no events): their own signal, one hint per burst
    let hinted = false;
    const offShells = this.engine.shells.changes.on(SHELLS_CHANGED, () => {
      if (hinted) return;
      hinted = true;
      setImmediate(() => {
        hinted = false;
        if (!this.closed) this.send({ t: 'shells.changed' });
      });
    });
    // presence is throttled by the engine already: one hint per announcement
    const offPresence = this.engine.presence.changes.on(PRESENCE_CHANGED, () => this.send({ t: 'presence.changed' }));
    this.unsubscribe = () => {
      offEvents();
      offShells();
      offPresence();
    };
  }

  /**
   * Handles one message from the renderer. Returns null, or why the message could not even be answered (the
   * transport decides: the WebSocket closes with that reason, IPC drops it and logs).
   */
  handle(raw: unknown): string | null {
    if (this.closed) return null;
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) {
      const error: UiError = { code: 'INVALID_INPUT', message: parsed.reason };
      if (parsed.callId !== undefined) this.send({ t: 'result', id: parsed.callId, ok: false, error });
      else if (parsed.shellId !== undefined) this.send({ t: 'shell.error', shellId: parsed.shellId, error });
      else return parsed.reason;
      return null;
    }
    this.dispatch(parsed.message);
    return null;
  }

  private dispatch(message: ClientMessage): void {
    switch (message.t) {
      case 'call':
        void this.call(message.id, message.method, message.input);
        return;
      case 'shell.attach':
        this.attach(message.shellId, message.from);
        return;
      case 'shell.detach':
        this.detach(message.shellId);
        return;
      case 'shell.ack':
        this.streams.get(message.shellId)?.attachment?.ack(message.bytes);
        return;
      case 'shell.input':
        this.typed(message.shellId, (a) => a.write(message.text));
        return;
      case 'shell.resize':
        this.typed(message.shellId, (a) => {
          const driving = a.resize(message.cols, message.rows, message.take === true);
          this.send({ t: 'shell.driving', shellId: message.shellId, driving });
        });
        return;
    }
  }

  private async call(id: number, method: string, input: unknown): Promise<void> {
    if (!isMethodName(method)) {
      this.send({ t: 'result', id, ok: false, error: { code: 'NOT_FOUND', message: `unknown method ${JSON.stringify(method)}: see METHOD_NAMES in common/contract.ts` } });
      return;
    }
    if (this.callsInFlight >= this.maxCalls) {
      this.send({ t: 'result', id, ok: false, error: { code: 'LIMIT_EXCEEDED', message: `more than ${this.maxCalls} calls at once on one UI connection: wait for some to answer` } });
      return;
    }
    this.callsInFlight++;
    try {
      const value = await this.engine.call(this.engine.operator(), method, input ?? {});
      this.send({ t: 'result', id, ok: true, value });
    } catch (error) {
      const pub = toPublicError(error);
      if (pub.code === 'INTERNAL') console.error(`[ui] ${method} failed:`, error);
      this.send({ t: 'result', id, ok: false, error: { code: pub.code, message: pub.message } });
    } finally {
      this.callsInFlight--;
    }
  }

  private attach(shellId: string, from: number | undefined): void {
    this.detach(shellId); // attaching again restarts from the new cursor
    if (this.streams.size >= this.maxAttached) {
      this.send({ t: 'shell.error', shellId, error: { code: 'LIMIT_EXCEEDED', message: `at most ${this.maxAttached} shells watched at once per connection: detach one first` } });
      return;
    }
    try {
      const operator = this.engine.operator();
      const session = this.engine.shells.get(operator, shellId);
      const start = from ?? session.ring.start;
      const stream = new ShellStream(
        shellId,
        (m, sent) => this.sendShell(m, sent),
        this.frameMs,
        () => session.ring.end,
        () => this.finished(shellId, stream),
        start,
      );
      this.streams.set(shellId, stream);
      stream.attachment = this.engine.attachShell(operator, shellId, stream, start);
      if (session.exit) stream.exitedBefore(session.exit);
    } catch (error) {
      this.streams.delete(shellId);
      const pub = toPublicError(error);
      this.send({ t: 'shell.error', shellId, error: { code: pub.code, message: pub.message } });
    }
  }

  /**
   * What the person typed or a resize, through the shell's attachment (checked and audited by the engine, once
   * per attachment). Refusals come back as that shell's error; without an attachment there is no shell to type to.
   */
  private typed(shellId: string, act: (attachment: NonNullable<ShellStream['attachment']>) => void): void {
    try {
      const attachment = this.streams.get(shellId)?.attachment;
      if (attachment) return act(attachment);
      // an unknown shell is refused by the lookup; an ended one's stream is over
      const ended = this.engine.shells.get(this.engine.operator(), shellId).exit;
      const why = ended ? 'has exited: its output can still be read; open a new shell to run more' : 'is not attached on this connection: attach it first (shell.attach)';
      this.send({ t: 'shell.error', shellId, error: { code: ended ? 'CONFLICT' : 'NOT_FOUND', message: `shell ${shellId} ${why}` } });
    } catch (error) {
      const pub = toPublicError(error);
      this.send({ t: 'shell.error', shellId, error: { code: pub.code, message: pub.message } });
    }
  }

  private finished(shellId: string, stream: ShellStream): void {
    if (this.streams.get(shellId) !== stream) return;
    this.streams.delete(shellId);
    stream.stop();
  }

  private detach(shellId: string): void {
    const stream = this.streams.get(shellId);
    if (!stream) return;
    this.streams.delete(shellId);
    stream.stop();
  }

  private sendShell(message: ServerMessage, sent?: () => void): void {
    this.send(message, sent);
    for (const s of this.streams.values()) this.maxPendingBytes = Math.max(this.maxPendingBytes, s.maxPendingBytes);
  }

  private send(message: ServerMessage, sent?: () => void): void {
    if (this.closed) return;
    this.transmit(message, sent);
  }

  /** Shells this connection watches now. */
  get attached(): string[] {
    return [...this.streams.keys()];
  }

  /** The connection ended: stop events, detach every shell (the engine stops feeding them). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe?.();
    for (const stream of this.streams.values()) stream.stop();
    this.streams.clear();
  }
}
