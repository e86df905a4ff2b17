import { describe, expect, it } from 'vitest';
import { EngineClient, EngineCallError } from '../../src-renderer/src/engine-client';
import { backoffDelay, RECONNECT } from '../../src-renderer/src/transports/backoff';
import { takePiece, sendTyped } from '../../src-renderer/src/features/terminals/shell-input';
import { FakeUiTransport } from './fake-ui-transport';

// shell.data carries raw bytes (over the WebSocket as a binary frame, over IPC as this object)
const bytesOf = (text: string) => new Uint8Array(Buffer.from(text));

function connected() {
  const transport = new FakeUiTransport();
  const client = new EngineClient(transport);
  transport.link('open');
  return { transport, client };
}

describe('engine client', () => {
  it('answers a call with the value, and a refusal with its code and message', async () => {
    const { transport, client } = connected();
    const listed = client.call('shell_list', {});
    const closing = client.call('shell_close', { shellId: 'sh-x' });
    const [first, second] = transport.calls();
    transport.deliver({ t: 'result', id: first!.id, ok: true, value: { shells: [] } });
    transport.deliver({ t: 'result', id: second!.id, ok: false, error: { code: 'NOT_FOUND', message: 'unknown shell sh-x: see shell_list' } });
    await expect(listed).resolves.toEqual({ shells: [] });
    await expect(closing).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'unknown shell sh-x: see shell_list' });
  });

  it('a dropped link fails calls in flight and refuses new ones until it is back, saying so', async () => {
    const { transport, client } = connected();
    const inFlight = client.call('shell_list', {});
    transport.link('reconnecting');
    await expect(inFlight).rejects.toBeInstanceOf(EngineCallError);
    await expect(inFlight).rejects.toMatchObject({ code: 'DISCONNECTED' });
    await expect(client.call('shell_list', {})).rejects.toMatchObject({ code: 'DISCONNECTED' });
    expect(client.state).toBe('reconnecting');
    transport.link('open');
    expect(client.state).toBe('open');
  });

  it('acknowledges the bytes a terminal rendered, and only once', async () => {
    const { transport, client } = connected();
    const acks: Array<() => void> = [];
    const seen: string[] = [];
    client.attachShell('sh-1', { data: (bytes, _t, ack) => (seen.push(Buffer.from(bytes).toString()), acks.push(ack)) });
    expect(transport.sent).toContainEqual({ t: 'shell.attach', shellId: 'sh-1', from: 0 });
    transport.deliver({ t: 'shell.data', shellId: 'sh-1', cursor: 0, data: bytesOf('héllo') });
    expect(seen).toEqual(['héllo']);
    acks[0]!();
    acks[0]!();
    await Promise.resolve();
    expect(transport.sent.filter((m) => m.t === 'shell.ack')).toEqual([{ t: 'shell.ack', shellId: 'sh-1', bytes: 6 }]);
    acks[0]!();
    await Promise.resolve();
    expect(transport.sent.filter((m) => m.t === 'shell.ack')).toHaveLength(1);
  });

  it('frames a terminal rendered in one turn are acknowledged in one message', async () => {
    const { transport, client } = connected();
    const acks: Array<() => void> = [];
    client.attachShell('sh-1', { data: (_b, _t, ack) => acks.push(ack) });
    transport.deliver({ t: 'shell.data', shellId: 'sh-1', cursor: 0, data: bytesOf('0123456789') });
    transport.deliver({ t: 'shell.data', shellId: 'sh-1', cursor: 10, data: bytesOf('abcde') });
    transport.deliver({ t: 'shell.data', shellId: 'sh-1', cursor: 15, data: bytesOf('xyz') });
    acks[0]!();
    acks[1]!();
    await Promise.resolve();
    expect(transport.sent.filter((m) => m.t === 'shell.ack')).toEqual([{ t: 'shell.ack', shellId: 'sh-1', bytes: 15 }]);
    acks[2]!();
    await Promise.resolve();
    expect(transport.sent.filter((m) => m.t === 'shell.ack').at(-1)).toEqual({ t: 'shell.ack', shellId: 'sh-1', bytes: 3 });
  });

  it('after a reconnect, an attached shell resumes after the last byte received, and stale acks are not sent', async () => {
    const { transport, client } = connected();
    const acks: Array<() => void> = [];
    client.attachShell('sh-1', { data: (_b, _t, ack) => acks.push(ack) });
    transport.deliver({ t: 'shell.data', shellId: 'sh-1', cursor: 100, data: bytesOf('0123456789') });
    transport.link('reconnecting');
    transport.link('open');
    expect(transport.sent.filter((m) => m.t === 'shell.attach').at(-1)).toEqual({ t: 'shell.attach', shellId: 'sh-1', from: 110 });
    acks[0]!(); // rendered after the link changed: the new link never sent these bytes
    await Promise.resolve();
    expect(transport.sent.some((m) => m.t === 'shell.ack')).toBe(false);
  });

  it('a detached shell is not re-attached and its late frames are ignored', () => {
    const { transport, client } = connected();
    const seen: number[] = [];
    const attachment = client.attachShell('sh-1', { data: (b) => seen.push(b.length) });
    attachment.detach();
    expect(transport.sent.at(-1)).toEqual({ t: 'shell.detach', shellId: 'sh-1' });
    transport.deliver({ t: 'shell.data', shellId: 'sh-1', cursor: 0, data: bytesOf('late') });
    transport.link('reconnecting');
    transport.link('open');
    expect(seen).toEqual([]);
    expect(transport.sent.filter((m) => m.t === 'shell.attach')).toHaveLength(1);
  });

  it('passes events, exits and hello on', () => {
    const { transport, client } = connected();
    const kinds: string[] = [];
    const exits: unknown[] = [];
    client.on((e) => kinds.push(e.kind));
    client.attachShell('sh-1', { data: () => undefined, exit: (e) => exits.push(e) });
    transport.deliver({ t: 'hello', operator: 'operator', mcpUrl: 'http://127.0.0.1:1/mcp', room: 'r', version: '1' });
    transport.deliver({ t: 'event', event: { id: 1, at: 'now', kind: 'graph.stage', actor: null, subject: null, data: null } });
    transport.deliver({ t: 'shell.exit', shellId: 'sh-1', exitCode: 3, signal: null });
    expect(client.identity?.operator).toBe('operator');
    expect(kinds).toEqual(['graph.stage']);
    expect(exits).toEqual([{ exitCode: 3, signal: null }]);
  });
});

describe('reconnect pacing', () => {
  it('doubles from the base up to the cap, with at most 20% jitter below', () => {
    expect(backoffDelay(0, () => 1)).toBe(RECONNECT.baseMs);
    expect(backoffDelay(3, () => 1)).toBe(RECONNECT.baseMs * 8);
    expect(backoffDelay(50, () => 1)).toBe(RECONNECT.maxMs);
    expect(backoffDelay(50, () => 0)).toBe(RECONNECT.maxMs * 0.8);
  });
});

describe('typed input', () => {
  it('goes through the attachment in order, a big paste in pieces, and says so when the link is down', () => {
    const { transport, client } = connected();
    const shell = client.attachShell('sh-1', { data: () => undefined });
    let notSent = 0;
    sendTyped('echo hi\r', (piece) => shell.write(piece), () => notSent++);
    sendTyped('x'.repeat(40_000), (piece) => shell.write(piece), () => notSent++);
    expect(shell.resize(100, 30)).toBe(true);
    const typed = transport.sent.filter((m) => m.t === 'shell.input' || m.t === 'shell.resize');
    expect(typed.map((m) => (m.t === 'shell.input' ? m.text.length : `${m.cols}x${m.rows}`))).toEqual([8, 16_000, 16_000, 8_000, '100x30']);
    expect(notSent).toBe(0);
    transport.link('reconnecting');
    sendTyped('lost', (piece) => shell.write(piece), () => notSent++);
    expect(notSent).toBe(1);
    expect(shell.resize(80, 24)).toBe(false);
    shell.detach();
    transport.link('open');
    expect(shell.write('after detach')).toBe(false);
  });

  it('cuts a big paste into pieces without splitting a surrogate pair', () => {
    expect(takePiece('ab😀cd', 3)).toBe('ab');
    expect(takePiece('abc', 3)).toBe('abc');
  });
});
