/**
 * A UiTransport wired straight to a real UiSession over a real engine (what Electron IPC and the WebSocket
 * carry, without the wire): messages are copied through JSON both ways, as the real transports do, and
 * delivered asynchronously.
 */
import { UiSession } from '../../src-main/bridge/ui-session';
import type { ClientMessage, ServerMessage, UiTransport } from '../../src-main/common/ui-protocol';
import type { Engine } from '../../src-main/engine/engine';

type LinkState = 'open' | 'reconnecting' | 'closed';

export class SessionTransport implements UiTransport {
  private readonly messageListeners = new Set<(m: ServerMessage) => void>();
  private readonly stateListeners = new Set<(s: LinkState) => void>();
  private readonly session: UiSession;
  /** Every contract method the client called, in order. */
  readonly called: string[] = [];

  constructor(engine: Engine) {
    this.session = new UiSession(engine, (m) => this.deliver(m), { mcpUrl: 'http://127.0.0.1:1/mcp' });
    queueMicrotask(() => {
      this.session.open();
      for (const l of [...this.stateListeners]) l('open');
    });
  }

  send(message: ClientMessage): void {
    if (message.t === 'call') this.called.push(message.method);
    this.session.handle(JSON.parse(JSON.stringify(message)));
  }
  onMessage(listener: (m: ServerMessage) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }
  onState(listener: (s: LinkState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }
  close(): void {
    this.session.close();
  }

  private deliver(message: ServerMessage): void {
    const copy = JSON.parse(JSON.stringify(message)) as ServerMessage;
    setImmediate(() => {
      for (const l of [...this.messageListeners]) l(copy);
    });
  }
}
