/**
 * The Electron transport: the preload's `window.commonroom` bridge (CommonroomBridge, src-main/common/ipc.ts)
 * carries the UI protocol over IPC. The link lives as long as the window, so it is open at once and never
 * reconnects. The desktop app's own messages (the room could not open, a notification was clicked) go to the
 * desktop link, not to the engine client.
 */
import { BRIDGE_KEY, isDesktopMessage, type CommonroomBridge, type DesktopMessage, type DesktopNote } from '../../../src-main/common/ipc';
import type { ClientMessage, ServerMessage, UiTransport } from '../../../src-main/common/ui-protocol';

/** What the window can ask of the desktop app beyond the room's protocol, and what the app tells it. */
export interface DesktopLink {
  notify(note: DesktopNote): void;
  chooseRoom(): void;
  /** The app's own messages; one that came before the listener ("unavailable") is replayed to it. */
  listen(listener: (message: DesktopMessage) => void): () => void;
}

export class IpcTransport implements UiTransport {
  private readonly offs: Array<() => void> = [];
  private readonly desktopListeners = new Set<(message: DesktopMessage) => void>();
  private readonly desktopSeen: DesktopMessage[] = [];
  readonly desktop: DesktopLink;

  constructor(private readonly bridge: CommonroomBridge) {
    this.desktop = {
      notify: (note) => bridge.notify(note),
      chooseRoom: () => bridge.chooseRoom(),
      listen: (listener) => {
        this.desktopListeners.add(listener);
        for (const m of this.desktopSeen) listener(m);
        return () => void this.desktopListeners.delete(listener);
      },
    };
    // subscribed from the start: "unavailable" may be the window's first word
    this.offs.push(
      bridge.onMessage((m) => {
        if (!isDesktopMessage(m)) return;
        if (m.t === 'desktop.unavailable') this.desktopSeen.push(m);
        for (const listener of this.desktopListeners) listener(m);
      }),
    );
  }

  send(message: ClientMessage): void {
    this.bridge.send(message);
  }

  onMessage(listener: (message: ServerMessage) => void): () => void {
    const off = this.bridge.onMessage((m) => {
      if (!isDesktopMessage(m)) listener(m);
    });
    this.offs.push(off);
    return off;
  }

  onState(listener: (state: 'open' | 'reconnecting' | 'closed') => void): () => void {
    queueMicrotask(() => listener('open'));
    return () => undefined;
  }

  close(): void {
    for (const off of this.offs.splice(0)) off();
  }
}

/** The preload bridge when running inside the desktop app, else null. */
export function ipcBridge(): CommonroomBridge | null {
  const bridge = (globalThis as Record<string, unknown>)[BRIDGE_KEY] as Partial<CommonroomBridge> | undefined;
  return bridge && typeof bridge.send === 'function' && typeof bridge.onMessage === 'function' ? (bridge as CommonroomBridge) : null;
}
