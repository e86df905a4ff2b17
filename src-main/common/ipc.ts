/**
 * The one bridge between the desktop app's window and its main process: what the preload exposes on
 * `window.commonroom` (`CommonroomBridge`) and the renderer consumes (transports/ipc-transport.ts), and the IPC
 * channels under it. Both sides are typed against this file, so a drift on either side fails the type check.
 *
 * Pure TypeScript, and nothing here may pull a runtime dependency into the preload: a sandboxed preload may
 * `require` only what SANDBOXED_PRELOAD_MODULES names (test/app/preload-sandbox.test.ts reads the built file).
 */
import type { ClientMessage, ServerMessage } from './ui-protocol';

/** The global the preload exposes through contextBridge. */
export const BRIDGE_KEY = 'commonroom';

/**
 * What `require` gives a sandboxed preload (Electron's "Process Sandboxing" tutorial: `electron` with its renderer
 * modules, and the `events`, `timers` and `url` polyfills). Anything else throws "module not found: NAME" at load.
 */
export const SANDBOXED_PRELOAD_MODULES: readonly string[] = ['electron', 'events', 'timers', 'url'];

/** The preload's client (re)starts: the main process opens a fresh UI session for that window and says hello. */
export const IPC_UI_OPEN = 'commonroom:ui:open';
/** A desktop notification the renderer asks for (DesktopNote). */
export const IPC_DESKTOP_NOTIFY = 'commonroom:desktop:notify';
/** The person asked to open another room (after the room could not open). */
export const IPC_DESKTOP_CHOOSE_ROOM = 'commonroom:desktop:choose-room';

/**
 * A native notification: shown by the main process (Electron's Notification); a click focuses what it is
 * about: the handoff `handoffId` in the inbox, or the terminal `shellId` (an agent waiting for the person).
 */
export interface DesktopNote {
  title: string;
  body: string;
  handoffId?: string;
  shellId?: string;
}

/** Size caps the main process enforces on a DesktopNote (longer text is cut, never refused). */
export const DESKTOP_NOTE_LIMITS = { title: 120, body: 400, handoffId: 128 } as const;

/** Messages only the desktop app sends, beside the UI protocol's own (ServerMessage). */
export type DesktopMessage =
  /** Sent instead of `hello` when the room could not open: why, and whose it is when another process holds it. */
  | { t: 'desktop.unavailable'; room: string; message: string; holderPid: number | null }
  /** The person clicked a notification: show this handoff in the inbox, or this terminal. */
  | { t: 'desktop.focus'; screen: 'inbox' | 'terminals'; subject: string };

export type BridgeMessage = ServerMessage | DesktopMessage;

/** What the preload exposes on `window.commonroom`. Values crossing it are copied (contextBridge). */
export interface CommonroomBridge {
  /** A protocol message to the room process (calls, shell attach/detach/ack). */
  send(message: ClientMessage): void;
  /**
   * Every message from the main process (hello, results, events, shell frames, desktop messages); returns an
   * unsubscribe. The first subscription opens the window's session; the hello is replayed to later ones.
   */
  onMessage(listener: (message: BridgeMessage) => void): () => void;
  /** A native desktop notification. */
  notify(note: DesktopNote): void;
  /** Ask the main process to let the person pick another room (a file dialog), then reload the window. */
  chooseRoom(): void;
}

export function isDesktopMessage(message: BridgeMessage): message is DesktopMessage {
  return message.t === 'desktop.unavailable' || message.t === 'desktop.focus';
}
