/**
 * The browser transport under `commonroom serve`: one WebSocket at /ui/socket on the page's own host. The UI
 * cookie set by the token URL rides along by itself. A dropped link is retried with backoff and reported as
 * 'reconnecting' until it is back.
 */
import { UI_SIGNED_OUT_CLOSE, UI_SOCKET_PATH, type ClientMessage, type ServerMessage, type UiTransport } from '../../../src-main/common/ui-protocol';
import { readServerMessage } from '../../../src-main/common/ui-shell-frame';
import { backoffDelay } from './backoff';

type LinkState = 'open' | 'reconnecting' | 'closed';

/** What the socket needs of the page's sign-in (UiSignIn). */
export interface SocketAuth {
  prepare(): Promise<string | null>;
  protocols(): string[];
  diagnose(): Promise<string | null>;
}

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

  private everOpen = false;
  private why: string | null = null;

  constructor(
    private readonly url: string,
    private readonly makeSocket: (url: string, protocols: string[]) => WebSocket = (u, p) => new WebSocket(u, p),
    private readonly delay: (attempt: number) => number = backoffDelay,
    /** The page's sign-in (ui-sign-in.ts): prepared before the first connection, asked why when refused. */
    private readonly auth: SocketAuth | null = null,
  ) {
    if (!auth) {
      this.connect();
      return;
    }
    void auth.prepare().then((problem) => (problem ? this.giveUp(problem) : this.connect()));
  }

  /** Why the link is closed for good (signed out, a used link), said in words; null otherwise. */
  problem(): string | null {
    return this.why;
  }

  private giveUp(problem: string): void {
    this.why = problem;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.emitState('closed');
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
    const socket = this.makeSocket(this.url, this.auth?.protocols() ?? []);
    this.socket = socket;
    socket.onopen = () => {
      this.attempt = 0;
      this.everOpen = true;
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
    socket.onclose = (e?: { code?: number }) => {
      if (this.socket !== socket || this.closed) return;
      this.socket = null;
      this.emitState('reconnecting');
      const retry = () => (this.timer = setTimeout(() => this.connect(), this.delay(this.attempt++)));
      // refused, or signed out: a sign-in that no longer holds is said at once, never retried forever
      if (!this.auth || (e?.code !== UI_SIGNED_OUT_CLOSE && this.everOpen && this.attempt === 0)) return void retry();
      void this.auth.diagnose().then((problem) => {
        if (this.closed) return;
        if (problem) this.giveUp(problem);
        else retry();
      });
    };
  }

  private emitState(state: LinkState): void {
    for (const l of [...this.stateListeners]) l(state);
  }
}
