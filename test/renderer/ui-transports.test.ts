import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BridgeMessage } from '../../src-main/common/ipc';
import type { ServerMessage } from '../../src-main/common/ui-protocol';
import { encodeShellFrame } from '../../src-main/common/ui-shell-frame';
import { IpcTransport, ipcBridge } from '../../src-renderer/src/transports/ipc-transport';
import { WebSocketTransport, socketUrl } from '../../src-renderer/src/transports/websocket-transport';
import { pickTransport } from '../../src-renderer/src/transports/pick-transport';

/** Just enough of a browser WebSocket for the transport: the test opens, closes and feeds it. */
class FakeSocket {
  readyState = 0;
  sent: string[] = [];
  onopen: (() => void) | null = null;
  binaryType = 'blob';
  onmessage: ((e: { data: unknown }) => void) | null = null;
  onclose: (() => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(data);
  }
  close() {
    this.readyState = 3;
    this.onclose?.();
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  drop() {
    this.readyState = 3;
    this.onclose?.();
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('WebSocket transport', () => {
  it('uses the page host, ws or wss by the page protocol', () => {
    expect(socketUrl({ protocol: 'http:', host: '127.0.0.1:7391' })).toBe('ws://127.0.0.1:7391/ui/socket');
    expect(socketUrl({ protocol: 'https:', host: 'room.local' })).toBe('wss://room.local/ui/socket');
  });

  it('reports reconnecting when the link drops, retries with growing delays, and is open again when it is back', () => {
    vi.useFakeTimers();
    const sockets: FakeSocket[] = [];
    const delays: number[] = [];
    const transport = new WebSocketTransport(
      'ws://h/ui/socket',
      (url) => {
        const s = new FakeSocket(url);
        sockets.push(s);
        return s as unknown as WebSocket;
      },
      (attempt) => (delays.push(attempt), 100 * 2 ** attempt),
    );
    const states: string[] = [];
    transport.onState((s) => states.push(s));
    sockets[0]!.open();
    sockets[0]!.drop();
    vi.advanceTimersByTime(100);
    sockets[1]!.drop(); // refused again
    vi.advanceTimersByTime(199);
    expect(sockets).toHaveLength(2);
    vi.advanceTimersByTime(1);
    sockets[2]!.open();
    expect(states).toEqual(['open', 'reconnecting', 'reconnecting', 'open']);
    expect(delays).toEqual([0, 1]);
    // a success resets the pacing
    sockets[2]!.drop();
    expect(delays).toEqual([0, 1, 0]);
    transport.close();
    vi.advanceTimersByTime(10_000);
    expect(sockets).toHaveLength(3);
    expect(states.at(-1)).toBe('closed');
  });

  it('sends only while open, and passes JSON messages on (ignoring anything else)', () => {
    let socket: FakeSocket | undefined;
    const transport = new WebSocketTransport('ws://h/ui/socket', (url) => (socket = new FakeSocket(url)) as unknown as WebSocket);
    const got: ServerMessage[] = [];
    transport.onMessage((m) => got.push(m));
    transport.send({ t: 'shell.detach', shellId: 'a' });
    socket!.open();
    transport.send({ t: 'shell.detach', shellId: 'b' });
    socket!.onmessage?.({ data: 'not json' });
    socket!.onmessage?.({ data: JSON.stringify({ t: 'shell.exit', shellId: 'b', exitCode: 0, signal: null }) });
    expect(socket!.sent).toEqual([JSON.stringify({ t: 'shell.detach', shellId: 'b' })]);
    expect(got).toEqual([{ t: 'shell.exit', shellId: 'b', exitCode: 0, signal: null }]);
    transport.close();
  });

  it('reads shell output from binary frames (raw bytes, no base64) and ignores binary that is not a frame', () => {
    let socket: FakeSocket | undefined;
    const transport = new WebSocketTransport('ws://h/ui/socket', (url) => (socket = new FakeSocket(url)) as unknown as WebSocket);
    const got: ServerMessage[] = [];
    transport.onMessage((m) => got.push(m));
    socket!.open();
    expect(socket!.binaryType).toBe('arraybuffer');
    const bytes = new Uint8Array([0x68, 0xc3, 0xa9, 0x00, 0xff]);
    const frame = encodeShellFrame({ t: 'shell.data', shellId: 'sh-1', cursor: 42, data: bytes, truncated: true });
    socket!.onmessage?.({ data: frame.slice().buffer });
    socket!.onmessage?.({ data: new Uint8Array([0, 0, 0, 9, 1, 2]).buffer });
    expect(got).toEqual([{ t: 'shell.data', shellId: 'sh-1', cursor: 42, data: bytes, truncated: true }]);
    transport.close();
  });
});

/** A preload bridge as CommonroomBridge types it: what was sent, and the listeners the transport added. */
function fakeBridge() {
  const listeners = new Set<(m: BridgeMessage) => void>();
  const sent: unknown[] = [];
  const bridge = {
    send: (m: unknown) => sent.push(m),
    onMessage: (l: (m: BridgeMessage) => void) => (listeners.add(l), () => listeners.delete(l)),
    notify: (note: unknown) => sent.push(note),
    chooseRoom: () => sent.push('choose'),
  };
  return { listeners, sent, bridge };
}

describe('IPC transport', () => {
  it('is open at once and carries messages through the preload bridge both ways', async () => {
    const { listeners, sent, bridge } = fakeBridge();
    const transport = new IpcTransport(bridge);
    const states: string[] = [];
    transport.onState((s) => states.push(s));
    const got: ServerMessage[] = [];
    transport.onMessage((m) => got.push(m));
    await Promise.resolve();
    expect(states).toEqual(['open']);
    transport.send({ t: 'shell.ack', shellId: 'a', bytes: 3 });
    listeners.forEach((l) => l({ t: 'shell.exit', shellId: 'a', exitCode: 1, signal: null }));
    expect(sent).toEqual([{ t: 'shell.ack', shellId: 'a', bytes: 3 }]);
    expect(got).toHaveLength(1);
    transport.close();
    expect(listeners.size).toBe(0);
  });

  it("routes the desktop app's own messages to the desktop link, replaying 'unavailable' to a late listener", () => {
    const { listeners, sent, bridge } = fakeBridge();
    const transport = new IpcTransport(bridge);
    const engineSide: unknown[] = [];
    transport.onMessage((m) => engineSide.push(m));
    const why: BridgeMessage = { t: 'desktop.unavailable', room: '/r.md', message: 'held by pid 7', holderPid: 7 };
    listeners.forEach((l) => l(why));
    const desktopSide: unknown[] = [];
    transport.desktop.listen((m) => desktopSide.push(m));
    expect(engineSide).toEqual([]);
    expect(desktopSide).toEqual([why]);
    transport.desktop.notify({ title: 't', body: 'b', handoffId: 'h1' });
    transport.desktop.chooseRoom();
    expect(sent).toEqual([{ title: 't', body: 'b', handoffId: 'h1' }, 'choose']);
  });

  it('says plainly that a file:// page without the bridge has no room, instead of reconnecting forever', async () => {
    const picked = pickTransport({ protocol: 'file:', host: '' } as Location);
    expect(picked.transport.problem?.()).toMatch(/no link to a room/);
    const states: string[] = [];
    picked.transport.onState((s) => states.push(s));
    await Promise.resolve();
    expect(states).toEqual(['closed']);
  });

  it('is chosen only when the preload exposed a usable bridge', () => {
    const g = globalThis as { commonroom?: unknown };
    g.commonroom = { endpoint: () => undefined };
    expect(ipcBridge()).toBeNull();
    g.commonroom = { send: () => undefined, onMessage: () => () => undefined, notify: () => undefined, chooseRoom: () => undefined };
    expect(ipcBridge()).not.toBeNull();
    delete g.commonroom;
  });
});
