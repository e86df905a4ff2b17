/** The typed IPC surface between the Electron main process and the preload. */
import type { MethodInput, MethodName, MethodOutputs } from './contract';
import type { ClientMessage, ServerMessage } from './ui-protocol';

export const IPC_ENDPOINT_CHANNEL = 'commonroom:endpoint';
/** The preload's client (re)starts: the main process opens a fresh UI session for that window and says hello. */
export const IPC_UI_OPEN = 'commonroom:ui:open';

export interface EndpointInfo {
  mcpUrl: string;
  tokenFile: string;
  room: string;
}

/** One typed function per contract method: resolves with its output, rejects with an Error "CODE: message". */
export type UiMethods = { [M in MethodName]: (input?: MethodInput<M>) => Promise<MethodOutputs[M]> };

/** What the preload exposes on `window.commonroom`. */
export interface CommonroomBridge extends UiMethods {
  endpoint(): Promise<EndpointInfo>;
  /** A raw protocol message (shell attach/detach/ack, or a call whose result comes through `on`); ids ≥ 0. */
  send(message: ClientMessage): void;
  /**
   * Every message from the room process (hello, events, shell frames, results of `send` calls); returns an
   * unsubscribe. The first subscription opens the window's session; the hello is replayed to later ones.
   */
  on(listener: (message: ServerMessage) => void): () => void;
}
