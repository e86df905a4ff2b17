import type { ClientMessage, ServerMessage, UiTransport } from '../../../src-main/common/ui-protocol';
import { IpcTransport, ipcBridge, type DesktopLink } from './ipc-transport';
import { WebSocketTransport, socketUrl } from './websocket-transport';
import { UiSignIn, sessionStore, takeLinkToken } from './ui-sign-in';

export interface PickedTransport {
  transport: UiTransport;
  /** The desktop app's extras, inside the desktop app. */
  desktop: DesktopLink | null;
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
  problem(): string {
    return NO_BRIDGE_PROBLEM;
  }
}

export const NO_BRIDGE_PROBLEM =
  'This window has no link to a room: it was opened from a file without the desktop app\'s bridge (its preload did not load). ' +
  'Start the app with "npm start", or open the address that "commonroom serve" prints in a browser.';

/**
 * IPC inside the desktop app (the preload bridge is there), the WebSocket under `commonroom serve` (signed in
 * by the link's one-time token, taken out of the address bar first), nothing from a bare file.
 */
export function pickTransport(location: Location = window.location): PickedTransport {
  const bridge = ipcBridge();
  if (bridge) {
    const transport = new IpcTransport(bridge);
    return { transport, desktop: transport.desktop };
  }
  if (location.protocol === 'file:') return { transport: new NoRoomTransport(), desktop: null };
  const signIn = new UiSignIn(sessionStore(), takeLinkToken(location, window.history));
  return { transport: new WebSocketTransport(socketUrl(location), undefined, undefined, signIn), desktop: null };
}
