import WebSocket from 'ws';
import { UI_SOCKET_PATH, type ServerMessage } from '../common/ui-protocol';
import { readServerMessage } from '../common/ui-shell-frame';

/** A room process the app did not start (the login service, a `commonroom serve`): where it serves, and how. */
export interface RemoteRoom {
  endpoint: string;
  /** The operator token, read from the person's private token file (as `ce` reads it). */
  token: string;
}

/** One window's UI session, whichever room it reaches: UiSession in this process, or RelaySession. */
export interface WindowSession {
  open(): void;
  /** A protocol message from the window; answers a problem to log, or null. */
  handle(message: unknown): string | null;
  close(): void;
}

/**
 * A window's UI session carried to another room process: its UI door's WebSocket (the one `ce shell attach`
 * uses), authenticated with the operator's bearer token. The window's messages go there as they are (that door
 * checks them as it checks a browser's); its answers come back as the window's own (shell output arrives as
 * binary frames and is handed on as `shell.data`). Messages the window sends before the socket opens wait for it.
 * When the connection ends without close() (the room process stopped, or refused it), `lost` is called once.
 */
export class RelaySession implements WindowSession {
  private ws: WebSocket | undefined;
  private readonly waiting: string[] = [];
  private closed = false;

  constructor(
    private readonly room: RemoteRoom,
    private readonly toWindow: (message: ServerMessage) => void,
    /** `greeted`: the room process had said hello on this connection (it served, then went). */
    private readonly lost: (why: string, greeted: boolean) => void,
    private readonly maxMessageBytes: number,
  ) {}

  open(): void {
    const url = new URL(UI_SOCKET_PATH, this.room.endpoint);
    url.protocol = 'ws:';
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${this.room.token}` }, perMessageDeflate: false, maxPayload: Math.max(this.maxMessageBytes, 8 * 1024 * 1024) });
    this.ws = ws;
    ws.on('open', () => {
      for (const text of this.waiting.splice(0)) ws.send(text);
    });
    let greeted = false;
    ws.on('message', (data: Buffer, isBinary) => {
      const message = readServerMessage(isBinary ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data.toString());
      if (!message) return;
      greeted = true;
      this.toWindow(message);
    });
    let said = false;
    const end = (why: string) => {
      if (said || this.closed) return;
      said = true;
      this.lost(why, greeted);
    };
    ws.on('unexpected-response', (_req, res) => {
      end(`the room process refused the window's connection (HTTP ${res.statusCode})`);
      ws.terminate(); // with this listener, ws leaves ending the refused request to us
    });
    ws.on('error', (error) => end(`the connection to the room process failed: ${error.message}`));
    ws.on('close', (code) => end(`the room process closed the window's connection (${code})`));
  }

  handle(message: unknown): string | null {
    if (this.closed) return 'the session is closed';
    const text = JSON.stringify(message);
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(text);
    else if (this.waiting.length < 1000) this.waiting.push(text);
    else return 'the room process does not answer yet: message dropped';
    return null;
  }

  close(): void {
    this.closed = true;
    this.waiting.length = 0;
    const ws = this.ws;
    if (ws?.readyState === WebSocket.OPEN) ws.close(1000, 'window closed');
    else if (ws?.readyState === WebSocket.CONNECTING) ws.terminate();
  }
}
