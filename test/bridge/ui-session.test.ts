/**
 * The UI door's connection logic against a real engine: calls as the operator, the change feed, and live
 * shells with acknowledgement flow control (a real PTY flooding a slow consumer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerMessage } from '../../src-main/common/ui-protocol';
import { UiSession } from '../../src-main/bridge/ui-session';
import { MAX_FRAME_BYTES } from '../../src-main/bridge/ui-shell-stream';
import { shellBench, sleep, type ShellBench } from '../engine/shells/helpers';

let bench: ShellBench;
beforeAll(async () => {
  bench = await shellBench();
});
afterAll(() => bench.close());

function connect() {
  const inbox: ServerMessage[] = [];
  const waiters: (() => void)[] = [];
  const session = new UiSession(bench.engine, (m) => {
    inbox.push(m);
    for (const w of waiters.splice(0)) w();
  }, { mcpUrl: 'http://127.0.0.1:1/mcp' });
  session.open();
  async function next<T extends ServerMessage>(match: (m: ServerMessage) => m is T, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = inbox.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching message; got ${JSON.stringify(inbox.slice(-5))}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }
  const result = (id: number) => next((m): m is Extract<ServerMessage, { t: 'result' }> => m.t === 'result' && m.id === id);
  return { session, inbox, next, result };
}

describe('UI session: calls and events', () => {
  it('says hello first, answers calls as the operator, and reports errors with codes', async () => {
    const c = connect();
    expect(c.inbox[0]).toMatchObject({ t: 'hello', operator: 'operator', mcpUrl: 'http://127.0.0.1:1/mcp', version: expect.any(String) });
    c.session.handle({ t: 'call', id: 1, method: 'shell_list', input: {} });
    expect(await c.result(1)).toMatchObject({ ok: true, value: { shells: expect.any(Array) } });
    c.session.handle({ t: 'call', id: 2, method: 'no_such_method', input: {} });
    expect(await c.result(2)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    // the contract's schema refuses unknown arguments: nothing is opened
    const before = (await bench.engine.call(bench.operator, 'shell_list', {})).shells.length;
    c.session.handle({ t: 'call', id: 3, method: 'shell_open', input: { nmae: 'typo' } });
    const refused = await c.result(3);
    expect(refused).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect(JSON.stringify(refused)).not.toMatch(/at .*\.ts:\d+/); // no stack
    expect((await bench.engine.call(bench.operator, 'shell_list', {})).shells.length).toBe(before);
    c.session.close();
  });

  it('answers a malformed call with an error, and reports messages it cannot answer to its transport', () => {
    const c = connect();
    expect(c.session.handle({ t: 'call', id: 9, method: 'shell_list', extra: true })).toBeNull();
    expect(c.inbox.at(-1)).toMatchObject({ t: 'result', id: 9, ok: false, error: { code: 'INVALID_INPUT' } });
    expect(c.session.handle({ t: 'shell.ack', shellId: 'sh-1', bytes: -5 })).toBeNull();
    expect(c.inbox.at(-1)).toMatchObject({ t: 'shell.error', shellId: 'sh-1', error: { code: 'INVALID_INPUT' } });
    expect(c.session.handle('hello')).toMatch(/malformed UI message/);
    expect(c.session.handle({ t: 'shutdown' })).toMatch(/malformed UI message/);
    c.session.close();
  });

  it('forwards committed events from the one change feed, and stops when closed', async () => {
    const c = connect();
    await bench.engine.call(bench.operator, 'participant_add', { name: 'watcher-1', capabilities: ['read'] });
    const event = await c.next((m): m is Extract<ServerMessage, { t: 'event' }> => m.t === 'event' && m.event.kind === 'participant.added');
    expect(event.event.subject).toBe('watcher-1');
    c.session.close();
    const count = c.inbox.length;
    await bench.engine.call(bench.operator, 'participant_add', { name: 'watcher-2', capabilities: ['read'] });
    await sleep(50);
    expect(c.inbox.length).toBe(count);
  });

  it("hints that the room's shells changed when an agent opens one and when it is closed; the event feed has only its opening and end, never its bytes", async () => {
    const c = connect();
    const hints = () => c.inbox.filter((m) => m.t === 'shells.changed').length;
    const added = await bench.engine.call(bench.operator, 'participant_add', { name: 'opener', capabilities: ['read', 'write'] });
    const agent = bench.engine.authenticate(added.token);
    if (!agent) throw new Error('the new participant did not authenticate');
    const shell = await bench.open({ name: 'agent shell' }, agent);
    await c.next((m): m is Extract<ServerMessage, { t: 'shells.changed' }> => m.t === 'shells.changed');
    const afterOpen = hints();
    // the shell's life is history (Activity shows it); its output stays off the event ring
    await c.next((m): m is Extract<ServerMessage, { t: 'event' }> => m.t === 'event' && m.event.kind === 'shell.opened');
    expect(c.inbox.filter((m) => m.t === 'event' && m.event.kind.startsWith('shell')).map((m) => (m.t === 'event' ? m.event.kind : ''))).toEqual(['shell.opened']);
    await bench.engine.call(agent, 'shell_close', { shellId: shell.id });
    const deadline = Date.now() + 10_000;
    while (hints() === afterOpen && Date.now() < deadline) await sleep(20);
    expect(hints()).toBeGreaterThan(afterOpen);
    c.session.close();
  });
});

type Data = Extract<ServerMessage, { t: 'shell.data' }>;
const isData = (m: ServerMessage): m is Data => m.t === 'shell.data';

describe('UI session: live shells', () => {
  it('streams a shell from its start, reports the exit after the last byte, and refuses an unknown shell', async () => {
    const c = connect();
    const shell = await bench.open();
    c.session.handle({ t: 'shell.attach', shellId: shell.id, from: 0 });
    await bench.io({ shellId: shell.id, text: "printf 'he%sllo\\n' y; exit 3\n" });
    const exit = await c.next((m): m is Extract<ServerMessage, { t: 'shell.exit' }> => m.t === 'shell.exit');
    expect(exit).toEqual({ t: 'shell.exit', shellId: shell.id, exitCode: 3, signal: null });
    const frames = c.inbox.filter(isData);
    const text = Buffer.concat(frames.map((f) => Buffer.from(f.data))).toString();
    expect(text).toContain('heyllo');
    expect(frames[0]?.cursor).toBe(0);
    expect(c.inbox.indexOf(exit)).toBeGreaterThan(c.inbox.indexOf(frames.at(-1) as Data));
    c.session.handle({ t: 'shell.attach', shellId: 'sh-000000-nothere' });
    expect(await c.next((m): m is Extract<ServerMessage, { t: 'shell.error' }> => m.t === 'shell.error')).toMatchObject({ error: { code: 'NOT_FOUND' } });
    c.session.close();
  });

  it("what the person types and a resize go through the shell's attachment: in order, checked, one audit row per attachment", async () => {
    const c = connect();
    const shell = await bench.open();
    const text = () => Buffer.concat(c.inbox.filter(isData).map((f) => Buffer.from(f.data))).toString();
    const shellError = () => c.next((m): m is Extract<ServerMessage, { t: 'shell.error' }> => m.t === 'shell.error' && m.shellId === shell.id);
    // typing before attaching has nowhere to go, and says so
    c.session.handle({ t: 'shell.input', shellId: shell.id, text: 'echo early\r' });
    expect((await shellError()).error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('attach it first') });
    const audited = async () => (await bench.engine.call(bench.engine.operator(), 'audit_list', { limit: 100 })).entries.filter((e) => e.target === shell.id && e.method === 'shell_io').length;
    const before = await audited();
    c.inbox.length = 0;
    c.session.handle({ t: 'shell.attach', shellId: shell.id, from: 0 });
    c.session.handle({ t: 'shell.resize', shellId: shell.id, cols: 91, rows: 27 });
    for (const key of "echo typed-$((6*7)); stty size\r") c.session.handle({ t: 'shell.input', shellId: shell.id, text: key });
    await c.next((m): m is Data => isData(m) && /typed-42/.test(text()) && /27 91/.test(text()));
    // as shell_io refuses them: too big, and a size no terminal has (the schema) 
    c.session.handle({ t: 'shell.input', shellId: shell.id, text: '€'.repeat(30_000) });
    expect((await shellError()).error).toMatchObject({ code: 'LIMIT_EXCEEDED' });
    expect(c.session.handle({ t: 'shell.resize', shellId: shell.id, cols: 1, rows: 27 })).toBeNull();
    expect(c.inbox.filter((m) => m.t === 'shell.error' && m.error.code === 'INVALID_INPUT')).toHaveLength(1);
    // 35 keystrokes and a resize: one row, as shell_io on this shell
    expect(await audited()).toBe(before + 1);
    // an ended shell refuses input the way shell_io does
    c.inbox.length = 0;
    c.session.handle({ t: 'shell.input', shellId: shell.id, text: 'exit 0\r' });
    await c.next((m): m is Extract<ServerMessage, { t: 'shell.exit' }> => m.t === 'shell.exit');
    c.session.handle({ t: 'shell.input', shellId: shell.id, text: 'echo late\r' });
    expect((await shellError()).error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('has exited') });
    c.session.close();
  });

  it('a detached shell sends nothing more', async () => {
    const c = connect();
    const shell = await bench.open();
    c.session.handle({ t: 'shell.attach', shellId: shell.id });
    await bench.io({ shellId: shell.id, text: 'echo one\n', wait: { until: 'match', pattern: '^one', timeoutMs: 10_000 } });
    await c.next((m): m is Data => isData(m) && Buffer.from(m.data).toString().includes('one'));
    c.session.handle({ t: 'shell.detach', shellId: shell.id });
    expect(c.session.attached).toEqual([]);
    const count = c.inbox.filter(isData).length;
    await bench.io({ shellId: shell.id, text: 'echo two\n', wait: { until: 'match', pattern: '^two', timeoutMs: 10_000 } });
    await sleep(50);
    expect(c.inbox.filter(isData).length).toBe(count);
    c.session.close();
  });

  it("a frame's buffer carries a later frame only once its transport said the frame was written", { timeout: 60_000 }, async () => {
    type Held = { view: Uint8Array; copy: Buffer; written: boolean };
    const held: Held[] = [];
    let shellId = '';
    let seen = '';
    let done = false;
    const session: UiSession = new UiSession(bench.engine, (m, sent) => {
      if (m.t !== 'shell.data') return;
      const frame: Held = { view: m.data, copy: Buffer.from(m.data), written: false };
      held.push(frame);
      seen += frame.copy.toString('latin1');
      done ||= seen.includes('SEQ2DONE');
      seen = seen.slice(-16);
      // every other frame is written at once; the others stay held, as by a socket write still in progress
      if (held.length % 2 === 0 && sent) {
        frame.written = true;
        sent();
      }
      setImmediate(() => session.handle({ t: 'shell.ack', shellId, bytes: m.data.length }));
    }, { mcpUrl: 'x' });
    session.open();
    const shell = await bench.open();
    shellId = shell.id;
    session.handle({ t: 'shell.attach', shellId, from: 0 });
    // distinct bytes all along (a reused buffer written over too early would show), several MiB of full frames
    const lines = 400_000;
    await bench.io({ shellId, text: `seq 1 ${lines}; echo SEQ$((1+1))DONE\n` });
    await expect.poll(() => done, { timeout: 50_000 }).toBe(true);
    session.close();
    const text = Buffer.concat(held.map((f) => f.copy)).toString('latin1');
    const expected = Array.from({ length: lines }, (_, i) => `${i + 1}\r\n`).join('');
    // (not toContain: a failing match of megabytes makes vitest build a diff that takes minutes)
    expect(text.includes(expected), "the output is not seq's lines, whole and in order").toBe(true);
    // what was never said to be written is untouched, and no later frame got its buffer
    for (const [i, frame] of held.entries()) {
      if (frame.written) continue;
      expect(Buffer.from(frame.view).equals(frame.copy)).toBe(true);
      expect(held.slice(i + 1).filter((later) => later.view.buffer === frame.view.buffer)).toEqual([]);
    }
    // and what was written was reused: fewer buffers than frames
    expect(held.length).toBeGreaterThan(8);
    expect(new Set(held.map((f) => f.view.buffer)).size).toBeLessThan(held.length - 4);
  });

  it('20 MB flooding a consumer that stalls arrives whole, in order, with memory bounded by the watermarks', { timeout: 240_000 }, async () => {
    // a small ring, so that a consumer stalling for a moment would lose output were the PTY not held back
    const ring = 256 * 1024;
    const flood = await shellBench({ shellScrollbackBytes: ring, viewerHighWatermark: 128 * 1024, viewerLowWatermark: 16 * 1024, viewerStallMs: 30_000 });
    try {
      const frames: Data[] = [];
      const problems: string[] = [];
      let consumerQueue = 0;
      let maxConsumerQueue = 0;
      let expectedCursor = 0;
      let received = 0;
      let tail = '';
      // the newest output rendered: the marker may be followed by the next prompt in a frame of its own
      let recent = '';
      let lines = 0;
      let stalls = 0;
      let rendering = Promise.resolve();
      let shellId = '';
      const outputEnd = () => flood.engine.shells.get(flood.operator, shellId).ring.end;
      const session: UiSession = new UiSession(flood.engine, (m) => {
        if (m.t !== 'shell.data') return;
        const bytes = Buffer.from(m.data);
        if (m.truncated) problems.push(`truncated at ${m.cursor}`);
        if (m.cursor !== expectedCursor) problems.push(`gap ${expectedCursor}→${m.cursor}`);
        expectedCursor = m.cursor + bytes.length;
        frames.push(m);
        consumerQueue += bytes.length;
        maxConsumerQueue = Math.max(maxConsumerQueue, consumerQueue);
        // frames are rendered one after another; every few MB the renderer freezes until the unread output
        // is about to fall out of the ring, and a while longer (it would be lost without backpressure)
        rendering = rendering.then(async () => {
          if (received > (stalls + 1) * 5 * 1024 * 1024 && stalls < 3) {
            stalls++;
            const deadline = Date.now() + 20_000;
            while (outputEnd() - expectedCursor < ring / 2 && Date.now() < deadline) await sleep(20);
            await sleep(500);
          } else await sleep(1);
          const text = tail + bytes.toString('latin1');
          lines += text.split('y\r\n').length - 1;
          tail = text.slice(-2);
          recent = (recent + bytes.toString('latin1')).slice(-256);
          received += bytes.length;
          consumerQueue -= bytes.length;
          session.handle({ t: 'shell.ack', shellId, bytes: bytes.length });
        });
      }, { mcpUrl: 'x' });
      session.open();
      const shell = await flood.open();
      shellId = shell.id;
      session.handle({ t: 'shell.attach', shellId, from: 0 });
      const total = 20 * 1024 * 1024;
      await flood.io({ shellId, text: `yes | head -c ${total}; printf '\\nFIN%s\\n' ISHED\n` });
      const deadline = Date.now() + 220_000;
      while (!(received === expectedCursor && recent.includes('FINISHED'))) {
        if (Date.now() > deadline) throw new Error(`flood did not finish: ${received} bytes received`);
        await sleep(50);
      }
      session.close();
      expect(stalls).toBe(3);
      expect(problems).toEqual([]);
      expect(lines).toBe(total / 2); // every "y\n" (the PTY writes y\r\n), none lost, none twice
      const high = flood.engine.limits.viewerHighWatermark;
      expect(session.maxPendingBytes).toBeLessThanOrEqual(high);
      expect(maxConsumerQueue).toBeLessThanOrEqual(high);
      expect(frames.every((f) => Buffer.from(f.data).length <= MAX_FRAME_BYTES)).toBe(true);
    } finally {
      await flood.close();
    }
  });
});
