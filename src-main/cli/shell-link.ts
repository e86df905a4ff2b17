import WebSocket from 'ws';
import type { MethodInput, MethodName, MethodOutputs } from '../common/contract';
import { RoomError } from '../common/errors';
import { UI_SOCKET_PATH, type ClientMessage, type ServerMessage } from '../common/ui-protocol';
import { readServerMessage } from '../common/ui-shell-frame';

/**
 * The UI door's WebSocket as a local program uses it: the same messages as the app's renderer
 * (common/ui-protocol.ts), authenticated with the operator's bearer token instead of the browser's cookie.
 * Calls are contract methods as the operator; shell output arrives as acknowledged binary frames.
 */
export class ShellLink {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private listener: ((message: ServerMessage) => void) | undefined;
  private closedWith: Error | null = null;
  private onClosed: ((error: Error) => void) | undefined;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary) => {
      const message = readServerMessage(isBinary ? data : data.toString()); // shell output comes binary
      if (!message) return;
      if (message.t === 'result') {
        const call = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.ok) call?.resolve(message.value);
        else call?.reject(new RoomError(message.error.code as never, message.error.message));
        return;
      }
      this.listener?.(message);
    });
    ws.on('close', (code, reason) => this.fail(new RoomError('UNAVAILABLE', `the room process closed the connection (${code}${reason.length ? `: ${reason.toString()}` : ''})`)));
    ws.on('error', (error) => this.fail(new RoomError('UNAVAILABLE', `the connection to the room process failed: ${error.message}`)));
  }

  /** Connects and waits for the door's hello. */
  static open(endpoint: string, token: string): Promise<ShellLink> {
    const url = new URL(UI_SOCKET_PATH, endpoint);
    url.protocol = 'ws:';
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false, maxPayload: 8 * 1024 * 1024 });
    return new Promise((resolve, reject) => {
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => {
          const message = (JSON.parse(body || '{}') as { error?: { message?: string } }).error?.message ?? `HTTP ${res.statusCode}`;
          reject(new RoomError('UNAVAILABLE', `the room process refused the terminal connection: ${message}`));
        });
      });
      ws.once('error', (error) => reject(new RoomError('UNAVAILABLE', `cannot reach the room process at ${endpoint}: ${error.message}`)));
      ws.once('message', (data) => {
        const hello = JSON.parse(data.toString()) as ServerMessage;
        if (hello.t !== 'hello') return reject(new RoomError('INTERNAL', `the room process did not say hello (got ${hello.t})`));
        resolve(new ShellLink(ws));
      });
    });
  }

  on(listener: (message: ServerMessage) => void): void {
    this.listener = listener;
  }

  /** Called once when the connection ends (not after close()). */
  onClose(listener: (error: Error) => void): void {
    this.onClosed = listener;
  }

  call<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutputs[M]> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.send({ t: 'call', id, method, input });
    });
  }

  send(message: ClientMessage): void {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(message));
  }

  private fail(error: Error): void {
    if (this.closedWith) return;
    this.closedWith = error;
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
    this.onClosed?.(error);
  }

  close(): void {
    this.closedWith ??= new Error('closed');
    this.ws.close(1000, 'detached');
  }
}
