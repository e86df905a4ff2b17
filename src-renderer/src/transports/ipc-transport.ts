/**
 * The Electron transport: the preload's `window.commonroom` bridge carries the same messages over IPC. The link
 * lives as long as the window, so it is open at once and never reconnects.
 */
import type { ClientMessage, ServerMessage, UiTransport } from '../../../src-main/common/ui-protocol';

/** The part of the preload bridge this transport uses. */
export interface UiBridge {
  send(message: ClientMessage): void;
  onMessage(listener: (message: ServerMessage) => void): () => void;
}

export class IpcTransport implements UiTransport {
  private readonly offs: Array<() => void> = [];

  constructor(private readonly bridge: UiBridge) {}

  send(message: ClientMessage): void {
    this.bridge.send(message);
  }

  onMessage(listener: (message: ServerMessage) => void): () => void {
    const off = this.bridge.onMessage(listener);
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
export function ipcBridge(): UiBridge | null {
  const bridge = (globalThis as { commonroom?: Partial<UiBridge> }).commonroom;
  return bridge && typeof bridge.send === 'function' && typeof bridge.onMessage === 'function' ? (bridge as UiBridge) : null;
}
