import type { UiTransport } from '../../../src-main/common/ui-protocol';
import { IpcTransport, ipcBridge } from './ipc-transport';
import { WebSocketTransport, socketUrl } from './websocket-transport';

/** IPC inside the desktop app (the preload bridge is there), the WebSocket under `commonroom serve`. */
export function pickTransport(): UiTransport {
  const bridge = ipcBridge();
  return bridge ? new IpcTransport(bridge) : new WebSocketTransport(socketUrl(window.location));
}
