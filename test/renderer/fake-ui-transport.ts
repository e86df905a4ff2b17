import type { ClientMessage, ServerMessage, UiTransport } from '../../src-main/common/ui-protocol';

type LinkState = 'open' | 'reconnecting' | 'closed';

/** A UiTransport the test drives: it records what the client sends and delivers what the test says the room sent. */
export class FakeUiTransport implements UiTransport {
  readonly sent: ClientMessage[] = [];
  private readonly messageListeners = new Set<(m: ServerMessage) => void>();
  private readonly stateListeners = new Set<(s: LinkState) => void>();
  /** Answers calls like a room would (set by the test); unanswered calls stay pending. */
  answer: ((method: string, input: unknown) => unknown) | null = null;

  send(message: ClientMessage): void {
    this.sent.push(message);
    if (message.t === 'call' && this.answer) {
      const value = this.answer(message.method, message.input);
      queueMicrotask(() => this.deliver({ t: 'result', id: message.id, ok: true, value }));
    }
  }
  onMessage(listener: (m: ServerMessage) => void): () => void {
    this.messageListeners.add(listener);
    return () => this.messageListeners.delete(listener);
  }
  onState(listener: (s: LinkState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }
  close(): void {}

  deliver(message: ServerMessage): void {
    for (const l of [...this.messageListeners]) l(message);
  }
  link(state: LinkState): void {
    for (const l of [...this.stateListeners]) l(state);
  }
  calls(method?: string): Extract<ClientMessage, { t: 'call' }>[] {
    return this.sent.filter((m): m is Extract<ClientMessage, { t: 'call' }> => m.t === 'call' && (!method || m.method === method));
  }
}

export const settle = () => new Promise((r) => setTimeout(r, 0));
