import { contextBridge, ipcRenderer } from 'electron';
import {
  BRIDGE_KEY,
  IPC_DESKTOP_CHOOSE_ROOM,
  IPC_DESKTOP_NOTIFY,
  IPC_UI_OPEN,
  type BridgeMessage,
  type CommonroomBridge,
  type DesktopNote,
} from '../src-main/common/ipc';
import { IPC_UI_MESSAGE, IPC_UI_SEND, type ClientMessage } from '../src-main/common/ui-protocol';

/**
 * The window's bridge to the main process (CommonroomBridge): the UI protocol's messages both ways, a native
 * notification, and "open another room". No Node, no raw ipcRenderer. This runs in Electron's sandbox, so it
 * may import only `electron` and types: anything else is bundled into preload.cjs or breaks its load
 * (test/app/preload-sandbox.test.ts checks the built file).
 */
const listeners = new Set<(message: BridgeMessage) => void>();
let opened = false;
let greeting: BridgeMessage | undefined;

function ensureOpen(): void {
  if (opened) return;
  opened = true;
  ipcRenderer.send(IPC_UI_OPEN);
}

ipcRenderer.on(IPC_UI_MESSAGE, (_event, message: BridgeMessage) => {
  // the first word of a session (hello, or why there is none) is replayed to listeners that come later
  if (message.t === 'hello' || message.t === 'desktop.unavailable') greeting = message;
  for (const listener of listeners) listener(message);
});

const bridge: CommonroomBridge = {
  send: (message: ClientMessage) => {
    ensureOpen();
    ipcRenderer.send(IPC_UI_SEND, message);
  },
  onMessage: (listener) => {
    listeners.add(listener);
    if (opened && greeting) listener(greeting);
    ensureOpen();
    return () => void listeners.delete(listener);
  },
  notify: (note: DesktopNote) => ipcRenderer.send(IPC_DESKTOP_NOTIFY, note),
  chooseRoom: () => ipcRenderer.send(IPC_DESKTOP_CHOOSE_ROOM),
};

contextBridge.exposeInMainWorld(BRIDGE_KEY, bridge);
