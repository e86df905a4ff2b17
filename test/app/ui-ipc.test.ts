/**
 * The UI door over Electron IPC, main-process side, with fake senders (Electron cannot start here) and a real
 * room behind it: who may talk (main frame of our own renderer, exact URL), what they may send.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IPC_UI_OPEN } from '../../src-main/common/ipc';
import { IPC_UI_MESSAGE, IPC_UI_SEND, type ServerMessage } from '../../src-main/common/ui-protocol';
import { makeTrustedUrlCheck } from '../../src-main/app/trusted-url';
import { UiIpc } from '../../src-main/app/ui-ipc';
import { windowOptions } from '../../src-main/app/window-options';
import { startRunner, type RunningRoom } from '../../src-main/server/runner';
import { makeHome } from '../helpers/env';

const home = makeHome();
let running: RunningRoom;
const handlers = new Map<string, (event: unknown, ...args: unknown[]) => void>();
const FILE_URL = 'file:///opt/Commonroom/resources/app.asar/out/renderer/index.html';
let ipc: UiIpc;
let nextSender = 1;

beforeAll(async () => {
  running = await startRunner({ paths: home.paths, port: 0, browserUi: false });
  ipc = new UiIpc(() => running, makeTrustedUrlCheck(FILE_URL), running.engine.limits.maxBodyBytes);
  ipc.register({ on: (channel, fn) => handlers.set(channel, fn) });
});

afterAll(async () => {
  ipc.close();
  await running.close();
  home.cleanup();
});

function window(url: string, parent: unknown = null) {
  const inbox: ServerMessage[] = [];
  const destroyed: (() => void)[] = [];
  const sender = {
    id: nextSender++,
    send: (channel: string, message: ServerMessage) => {
      if (channel === IPC_UI_MESSAGE) inbox.push(message);
    },
    isDestroyed: () => false,
    once: (_e: 'destroyed', fn: () => void) => destroyed.push(fn),
  };
  const event = () => ({ sender, senderFrame: { url, parent } });
  return {
    inbox,
    open: () => handlers.get(IPC_UI_OPEN)?.(event()),
    send: (message: unknown) => handlers.get(IPC_UI_SEND)?.(event(), message),
    sendFrom: (senderFrame: unknown, message: unknown) => handlers.get(IPC_UI_SEND)?.({ sender, senderFrame }, message),
    destroy: () => destroyed.forEach((fn) => fn()),
  };
}

const result = (inbox: ServerMessage[], id: number) => inbox.find((m): m is Extract<ServerMessage, { t: 'result' }> => m.t === 'result' && m.id === id);

describe('window security options', () => {
  it('isolates, sandboxes and denies Node, webviews and insecure content', () => {
    const prefs = windowOptions('/x/preload.cjs').webPreferences ?? {};
    expect(prefs).toMatchObject({
      preload: '/x/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
    });
  });
});

describe('the IPC sender check', () => {
  it('answers the main frame of our own renderer (its routes included)', async () => {
    const w = window(`${FILE_URL}#/terminals`);
    w.open();
    expect(w.inbox[0]).toMatchObject({ t: 'hello', operator: 'operator', mcpUrl: running.mcpUrl.toString() });
    w.send({ t: 'call', id: 1, method: 'shell_list', input: {} });
    await expect.poll(() => result(w.inbox, 1), { timeout: 10_000 }).toMatchObject({ ok: true, value: { shells: [] } });
    w.destroy();
  });

  it('ignores a subframe, a destroyed frame, and every URL that only looks like ours', async () => {
    const before = ipc.refused;
    const lookalikes = [
      'file:///opt/Commonroom/resources/app.asar/out/renderer/index.html.evil',
      'file:///opt/Commonroom/resources/app.asar/out/renderer/index.htm',
      'file:///tmp/evil/index.html',
      'file://evil.example/opt/Commonroom/resources/app.asar/out/renderer/index.html',
      'https://evil.example/opt/Commonroom/resources/app.asar/out/renderer/index.html',
      'not a url',
    ];
    const windows = lookalikes.map((url) => window(url));
    for (const w of windows) {
      w.open();
      w.send({ t: 'call', id: 1, method: 'participant_add', input: { name: 'intruder', capabilities: ['operate'] } });
    }
    const framed = window(FILE_URL, { url: 'https://evil.example/' });
    framed.open();
    framed.send({ t: 'call', id: 1, method: 'shell_list', input: {} });
    const gone = window(FILE_URL);
    gone.sendFrom(null, { t: 'call', id: 1, method: 'shell_list', input: {} });
    await new Promise((r) => setTimeout(r, 50));
    for (const w of [...windows, framed, gone]) expect(w.inbox).toEqual([]);
    expect(ipc.refused - before).toBe(lookalikes.length * 2 + 3);
    const names = (await running.engine.call(running.engine.operator(), 'participant_list', {})).participants.map((p: { name: string }) => p.name);
    expect(names).not.toContain('intruder');
  });

  it('a dev-server URL is compared by host and port, not by prefix', () => {
    const trusted = makeTrustedUrlCheck('http://localhost:5173/');
    expect(trusted('http://localhost:5173/')).toBe(true);
    expect(trusted('http://localhost:5173/#/graphs')).toBe(true);
    expect(trusted('http://localhost:5173.evil.example/')).toBe(false);
    expect(trusted('http://localhost:51730/')).toBe(false);
    expect(trusted('http://localhost:5173@evil.example/')).toBe(false);
    expect(trusted('http://user:pw@localhost:5173/')).toBe(false);
    expect(trusted('https://localhost:5173/')).toBe(false);
  });
});

describe('argument validation on IPC', () => {
  it('refuses arguments the contract does not allow, and changes nothing', async () => {
    const w = window(FILE_URL);
    w.open();
    w.send({ t: 'call', id: 2, method: 'participant_add', input: { name: 'x', capabilities: ['fly'] } });
    w.send({ t: 'call', id: 3, method: 'shell_open', input: { cols: 'wide' } });
    w.send({ t: 'call', id: 4, method: 'room_nuke', input: {} });
    w.send({ t: 'call', id: 5, method: 'shell_list', input: {}, extra: 'field' });
    await expect.poll(() => [2, 3, 4, 5].map((id) => result(w.inbox, id)?.ok), { timeout: 10_000 }).toEqual([false, false, false, false]);
    expect([2, 3, 4, 5].map((id) => (result(w.inbox, id) as { error?: { code: string } }).error?.code)).toEqual(['INVALID_INPUT', 'INVALID_INPUT', 'NOT_FOUND', 'INVALID_INPUT']);
    expect((await running.engine.call(running.engine.operator(), 'shell_list', {})).shells).toEqual([]);
    // not a protocol message at all: dropped, nothing answered
    const count = w.inbox.length;
    w.send('rm -rf /');
    w.send({ t: 'eval', code: '1' });
    // over the size limit: refused before parsing
    w.send({ t: 'call', id: 6, method: 'shell_list', input: { pad: 'a'.repeat(running.engine.limits.maxBodyBytes) } });
    await new Promise((r) => setTimeout(r, 50));
    expect(w.inbox.slice(count)).toEqual([{ t: 'result', id: 6, ok: false, error: { code: 'LIMIT_EXCEEDED', message: expect.stringContaining('larger than') } }]);
    w.destroy();
  });

  it('sends shell output as raw bytes, each frame in a buffer of its own (IPC clones a view\'s whole buffer)', async () => {
    const w = window(FILE_URL);
    w.open();
    w.send({ t: 'call', id: 7, method: 'shell_open', input: { shell: '/bin/sh', args: [], env: { PS1: '$ ', PATH: process.env.PATH ?? '/usr/bin:/bin' } } });
    await expect.poll(() => result(w.inbox, 7), { timeout: 10_000 }).toMatchObject({ ok: true });
    const shellId = (result(w.inbox, 7) as { value: { shell: { id: string } } }).value.shell.id;
    w.send({ t: 'shell.attach', shellId, from: 0 });
    w.send({ t: 'call', id: 8, method: 'shell_io', input: { shellId, text: "printf 'caf\\303\\251 %s\\n' ok; exit\n" } });
    await expect.poll(() => w.inbox.find((m) => m.t === 'shell.exit'), { timeout: 10_000 }).toBeTruthy();
    const frames = w.inbox.filter((m): m is Extract<ServerMessage, { t: 'shell.data' }> => m.t === 'shell.data');
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames) {
      expect(f.data).toBeInstanceOf(Uint8Array);
      expect(f.data.byteOffset === 0 && f.data.byteLength === f.data.buffer.byteLength).toBe(true);
    }
    expect(Buffer.concat(frames.map((f) => f.data)).toString('utf8')).toContain('café ok\r\n');
    w.destroy();
  });

  it('a closed window stops receiving events', async () => {
    const w = window(FILE_URL);
    w.open();
    w.destroy();
    await running.engine.call(running.engine.operator(), 'participant_add', { name: 'after-close', capabilities: ['read'] });
    await new Promise((r) => setTimeout(r, 50));
    expect(w.inbox.filter((m) => m.t === 'event')).toEqual([]);
  });

  it('with no room open, a window hears why instead of hello, and a call is answered UNAVAILABLE', () => {
    const why = { t: 'desktop.unavailable' as const, room: '/r.md', message: 'the room /r.md is already open in another room process (pid 7)', holderPid: 7 };
    const closed = new UiIpc(() => undefined, makeTrustedUrlCheck(FILE_URL), 1024, () => why);
    const own = new Map<string, (event: unknown, ...args: unknown[]) => void>();
    closed.register({ on: (channel, fn) => own.set(channel, fn) });
    const inbox: unknown[] = [];
    const sender = { id: 999, send: (_c: string, m: unknown) => inbox.push(m), isDestroyed: () => false, once: () => undefined };
    const event = { sender, senderFrame: { url: FILE_URL, parent: null } };
    own.get(IPC_UI_OPEN)?.(event);
    own.get(IPC_UI_SEND)?.(event, { t: 'call', id: 3, method: 'shell_list', input: {} });
    expect(inbox).toEqual([why, { t: 'result', id: 3, ok: false, error: { code: 'UNAVAILABLE', message: 'the room is not open: open a room first' } }]);
  });
});
