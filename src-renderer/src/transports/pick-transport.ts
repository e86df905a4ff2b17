import type { ClientMessage, ServerMessage, UiTransport } from '../../../src-main/common/ui-protocol';
import { IpcTransport, ipcBridge, type DesktopLink } from './ipc-transport';
import { WebSocketTransport, socketUrl } from './websocket-transport';

export interface PickedTransport {
  transport: UiTransport;
  /** The desktop app's extras, inside the desktop app. */
  desktop: DesktopLink | null;
  /** Why this window can never reach a room (said plainly instead of "reconnecting" forever), else null. */
  problem: string | null;
}

/** A page with no way to a room: its link is closed from the start. */
class NoRoomTransport implements UiTransport {
  send(_message: ClientMessage): void {}
  onMessage(_listener: (message: ServerMessage) => void): () => void {
    return () => undefined;
  }
  onState(listener: (state: 'open' | 'reconnecting' | 'closed') => void): () => void {
    queueMicrotask(() => listener('closed'));
    return () => undefined;
  }
  close(): void {}
}

export const NO_BRIDGE_PROBLEM =
  'This window has no link to a room: it was opened from a file without the desktop app\'s bridge (its preload did not load). ' +
  'Start the app with "npm start", or open the address that "commonroom serve" prints in a browser.';

/** IPC inside the desktop app (the preload bridge is there), the WebSocket under `commonroom serve`. */
export function pickTransport(location: Pick<Location, 'protocol' | 'host'> = window.location): PickedTransport {
  const bridge = ipcBridge();
  if (bridge) {
    const transport = new IpcTransport(bridge);
    return { transport, desktop: transport.desktop, problem: null };
  }
  if (location.protocol === 'file:') return { transport: new NoRoomTransport(), desktop: null, problem: NO_BRIDGE_PROBLEM };
  return { transport: new WebSocketTransport(socketUrl(location)), desktop: null, problem: null };
}
