/**
 * The browser transport under `commonroom serve`: one WebSocket at /ui/socket on the page's own host. The UI
 * cookie set by the token URL rides along by itself. A dropped link is retried with backoff and reported as
 * 'reconnecting' until it is back.
 */
import { UI_SOCKET_PATH, type ClientMessage, type ServerMessage, type UiTransport } from '../../../src-main/common/ui-protocol';
import { readServerMessage } from '../../../src-main/common/ui-shell-frame';
import { backoffDelay } from './backoff';

type LinkState = 'open' | 'reconnecting' | 'closed';

/** WebSocket.OPEN, spelled out so the transport also runs where the global is missing (unit tests on Node 20). */
const OPEN = 1;

export function socketUrl(location: Pick<Location, 'protocol' | 'host'>): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${UI_SOCKET_PATH}`;
}

export class WebSocketTransport implements UiTransport {
  private socket: WebSocket | null = null;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private readonly messageListeners = new Set<(m: ServerMessage) => void>();
  private readonly stateListeners = new Set<(s: LinkState) => void>();

  constructor(
    private readonly url: string,
    private readonly makeSocket: (url: string) => WebSocket = (u) => new WebSocket(u),
    private readonly delay: (attempt: number) => number = backoffDelay,
  ) {
    this.connect();
  }

  send(message: ClientMessage): void {
    if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify(message));
  }

  onMessage(listener: (message: ServerMessage) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }

  onState(listener: (state: LinkState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.socket?.close();
    this.emitState('closed');
  }

  private connect(): void {
    const socket = this.makeSocket(this.url);
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      this.emitState('open');
    };
    // shell output arrives as binary messages (ui-shell-frame.ts), read without a copy from an ArrayBuffer
    socket.binaryType = 'arraybuffer';
    socket.onmessage = (e: { data: unknown }) => {
      const data = typeof e.data === 'string' ? e.data : e.data instanceof ArrayBuffer ? new Uint8Array(e.data) : null;
      const message = data === null ? null : readServerMessage(data);
      if (!message) return;
      for (const l of [...this.messageListeners]) l(message);
    };
    socket.onclose = () => {
      if (this.socket !== socket || this.closed) return;
      this.socket = null;
      this.emitState('reconnecting');
      this.timer = setTimeout(() => this.connect(), this.delay(this.attempt++));
    };
  }

  private emitState(state: LinkState): void {
    for (const l of [...this.stateListeners]) l(state);
  }
}
