import { IPC_UI_OPEN, type DesktopMessage } from '../common/ipc';
import { IPC_UI_MESSAGE, IPC_UI_SEND, type ServerMessage } from '../common/ui-protocol';
import type { DoorEngine } from '../engine/index';
import { UiSession } from '../bridge/ui-session';
import { nestsDeeperThan } from '../net/json-depth';
import { LIMITS } from '../common/limits';
import { isTrustedSender, type IpcSenderEvent } from './trusted-url';
import { RelaySession, type RemoteRoom, type WindowSession } from './room-relay';

/**
 * The bytes of a `shell.data` message in a buffer of their own: structured clone copies a view's whole
 * underlying buffer, and a frame is often a slice of a larger one.
 */
function ownBytes(data: Uint8Array): Uint8Array {
  return data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data : new Uint8Array(data);
}

/** The part of a WebContents the UI door uses. */
export interface UiSender {
  id: number;
  send(channel: string, message: ServerMessage | DesktopMessage): void;
  isDestroyed(): boolean;
  once(event: 'destroyed', listener: () => void): void;
}

export interface UiIpcEvent extends IpcSenderEvent {
  sender: UiSender;
}

export interface IpcMainLike {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Electron types the event as IpcMainEvent; checked below
  on(channel: string, listener: (event: any, ...args: any[]) => void): unknown;
}

export interface UiRoom {
  engine: DoorEngine;
  mcpUrl: URL;
}

function isRemote(room: UiRoom | RemoteRoom): room is RemoteRoom {
  return 'endpoint' in room;
}

/**
 * The UI door over Electron IPC: one session per window (per WebContents), the same as one WebSocket: a
 * UiSession on the app's own room, or a RelaySession to the UI door of the room process the app shows. Every
 * message's sender is checked (main frame of our own renderer, exact URL); its shape by the protocol schema and
 * a method's arguments by the contract's schemas (inside the session and `engine.call`).
 */
export class UiIpc {
  private readonly sessions = new Map<number, WindowSession>();
  private readonly watched = new Set<number>();
  refused = 0;

  constructor(
    /** The app's own room (in this process), or the room process it shows (RemoteRoom), or none yet. */
    private readonly room: () => UiRoom | RemoteRoom | undefined,
    private readonly isTrustedUrl: (url: string) => boolean,
    private readonly maxMessageBytes: number,
    /** Why there is no room, when it could not open: said to a window instead of hello. */
    private readonly unavailable: () => DesktopMessage | undefined = () => undefined,
    /** The room process a window was shown through went away (RemoteRoom only). */
    private readonly lost: (why: string, greeted: boolean) => void = () => undefined,
  ) {}

  register(ipcMain: IpcMainLike): void {
    ipcMain.on(IPC_UI_OPEN, (event: UiIpcEvent) => this.open(event));
    ipcMain.on(IPC_UI_SEND, (event: UiIpcEvent, message: unknown) => this.receive(event, message));
  }

  private trusted(event: UiIpcEvent): boolean {
    if (isTrustedSender(event, this.isTrustedUrl)) return true;
    this.refused++;
    console.warn(`[ui] refused an IPC message from ${JSON.stringify(event.senderFrame?.url ?? 'a destroyed frame')}`);
    return false;
  }

  /** The renderer (re)started its client: a fresh session, as a new WebSocket would get. */
  private open(event: UiIpcEvent): void {
    if (!this.trusted(event)) return;
    this.sessions.get(event.sender.id)?.close();
    this.sessions.delete(event.sender.id);
    if (this.sessionFor(event.sender)) return;
    const why = this.unavailable();
    if (why && !event.sender.isDestroyed()) event.sender.send(IPC_UI_MESSAGE, why);
  }

  private receive(event: UiIpcEvent, message: unknown): void {
    if (!this.trusted(event)) return;
    const session = this.sessionFor(event.sender);
    if (!session) {
      const id = (message as { t?: unknown; id?: unknown } | null)?.id;
      if (typeof id === 'number' && Number.isSafeInteger(id)) {
        event.sender.send(IPC_UI_MESSAGE, { t: 'result', id, ok: false, error: { code: 'UNAVAILABLE', message: 'the room is not open: open a room first' } });
      }
      return;
    }
    let size: number;
    try {
      const text = JSON.stringify(message) ?? '';
      // nested deeper than the HTTP doors allow: refused as too large, before any schema walks it
      size = nestsDeeperThan(text, LIMITS.maxJsonDepth) ? Infinity : text.length;
    } catch {
      size = Infinity;
    }
    if (size > this.maxMessageBytes) {
      const id = (message as { t?: unknown; id?: unknown } | null)?.id;
      if (typeof id === 'number' && Number.isSafeInteger(id)) {
        event.sender.send(IPC_UI_MESSAGE, { t: 'result', id, ok: false, error: { code: 'LIMIT_EXCEEDED', message: `message larger than ${this.maxMessageBytes} bytes: send less per call` } });
      }
      return;
    }
    const problem = session.handle(message);
    if (problem) console.warn(`[ui] dropped an IPC message: ${problem}`);
  }

  private sessionFor(sender: UiSender): WindowSession | undefined {
    const existing = this.sessions.get(sender.id);
    if (existing) return existing;
    const room = this.room();
    if (!room) return undefined; // not open yet: the renderer retries on its "reconnecting" path
    const toWindow = (m: ServerMessage, sent?: () => void) => {
      if (!sender.isDestroyed()) sender.send(IPC_UI_MESSAGE, m.t === 'shell.data' ? { ...m, data: ownBytes(m.data) } : m);
      sent?.(); // the bytes were copied (ownBytes, then structured clone)
    };
    const session: WindowSession = isRemote(room)
      ? new RelaySession(room, toWindow, (why, greeted) => this.lost(why, greeted), this.maxMessageBytes)
      : new UiSession(room.engine, toWindow, { mcpUrl: room.mcpUrl.toString() });
    this.sessions.set(sender.id, session);
    if (!this.watched.has(sender.id)) {
      this.watched.add(sender.id);
      sender.once('destroyed', () => {
        this.watched.delete(sender.id);
        this.sessions.get(sender.id)?.close();
        this.sessions.delete(sender.id);
      });
    }
    session.open();
    return session;
  }

  /** Ends every session (the app is quitting). */
  close(): void {
    for (const session of this.sessions.values()) session.close();
    this.sessions.clear();
  }
}
