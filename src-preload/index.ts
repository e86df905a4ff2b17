import { contextBridge, ipcRenderer } from 'electron';
import { METHOD_NAMES, type MethodName } from '../src-main/common/contract';
import { IPC_ENDPOINT_CHANNEL, IPC_UI_OPEN, type CommonroomBridge, type EndpointInfo, type UiMethods } from '../src-main/common/ipc';
import { IPC_UI_MESSAGE, IPC_UI_SEND, type ClientMessage, type ServerMessage } from '../src-main/common/ui-protocol';

/**
 * One typed, narrow API for the renderer, generated from the contract: a function per method, `send` for the
 * protocol's shell messages, `on` for everything the room says. No Node, no raw ipcRenderer.
 * Calls made through the method functions use negative ids, so they never collide with the renderer's own.
 */
const listeners = new Set<(message: ServerMessage) => void>();
const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
let nextId = -1;
let opened = false;
let hello: ServerMessage | undefined;

function ensureOpen(): void {
  if (opened) return;
  opened = true;
  ipcRenderer.send(IPC_UI_OPEN);
}

ipcRenderer.on(IPC_UI_MESSAGE, (_event, message: ServerMessage) => {
  if (message.t === 'hello') hello = message;
  if (message.t === 'result' && message.id < 0) {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.ok) waiter?.resolve(message.value);
    else waiter?.reject(new Error(`${message.error.code}: ${message.error.message}`));
    return;
  }
  for (const listener of listeners) listener(message);
});

function call(method: MethodName, input: unknown): Promise<unknown> {
  ensureOpen();
  const id = nextId--;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    ipcRenderer.send(IPC_UI_SEND, { t: 'call', id, method, input: input ?? {} } satisfies ClientMessage);
  });
}

const methods = Object.fromEntries(METHOD_NAMES.map((method) => [method, (input?: unknown) => call(method, input)])) as unknown as UiMethods;

const bridge: CommonroomBridge = {
  ...methods,
  endpoint: () => ipcRenderer.invoke(IPC_ENDPOINT_CHANNEL) as Promise<EndpointInfo>,
  send: (message: ClientMessage) => {
    ensureOpen();
    ipcRenderer.send(IPC_UI_SEND, message);
  },
  on: (listener) => {
    listeners.add(listener);
    if (opened && hello) listener(hello);
    ensureOpen();
    return () => void listeners.delete(listener);
  },
};

contextBridge.exposeInMainWorld('commonroom', bridge);
