import { describe, expect, it } from 'vitest';
import type { ShellView } from '../../src-main/common/methods/shells';
import { EngineClient } from '../../src-renderer/src/engine-client';
import { createConnectionStore } from '../../src-renderer/src/stores/connection-store';
import { createShellsStore } from '../../src-renderer/src/stores/shells-store';
import { FakeUiTransport, settle } from './fake-ui-transport';

const view = (id: string, extra: Partial<ShellView> = {}): ShellView => ({
  id,
  name: id,
  owner: 'agent',
  cwd: '/tmp',
  command: ['/bin/bash'],
  pid: 1,
  startedAt: '2026-01-01T00:00:00.000Z',
  alive: true,
  exitCode: null,
  signal: null,
  cols: 120,
  rows: 32,
  outputBytes: 0,
  lastInput: null,
  sandbox: null,
  status: { state: 'idle', since: '2026-01-01T00:00:00.000Z' },
  agent: null,
  ...extra,
});

/** A room whose shells the test changes behind the client's back. */
function room(initial: ShellView[]) {
  const engine = { shells: initial };
  const transport = new FakeUiTransport();
  transport.answer = (method) => (method === 'shell_list' ? { shells: engine.shells } : {});
  const client = new EngineClient(transport);
  const shells = createShellsStore(client);
  const connection = createConnectionStore(client);
  return { engine, transport, client, shells, connection };
}

describe('renderer stores', () => {
  it('read the shells from the engine when the link opens', async () => {
    const r = room([view('sh-a'), view('sh-b')]);
    expect(r.shells.getState().loaded).toBe(false);
    r.transport.link('open');
    await settle();
    expect(r.shells.getState().shells.map((s) => s.id)).toEqual(['sh-a', 'sh-b']);
    expect(r.shells.getState().selectedId).toBe('sh-a');
  });

  it('after a reconnect, re-read the engine: what changed while the link was down shows, with no event needed', async () => {
    const r = room([view('sh-a'), view('sh-b')]);
    r.transport.link('open');
    await settle();
    r.shells.getState().select('sh-b');
    r.transport.link('reconnecting');
    expect(r.connection.getState().state).toBe('reconnecting');
    r.engine.shells = [view('sh-b', { alive: false, exitCode: 0 }), view('sh-c')];
    r.transport.link('open');
    await settle();
    expect(r.connection.getState()).toMatchObject({ state: 'open', everOpen: true });
    expect(r.shells.getState().shells.map((s) => [s.id, s.alive])).toEqual([['sh-b', false], ['sh-c', true]]);
    expect(r.shells.getState().selectedId).toBe('sh-b');
  });

  it('an event that may touch shells triggers a re-read; others do not', async () => {
    const r = room([view('sh-a')]);
    r.transport.link('open');
    await settle();
    const before = r.transport.calls('shell_list').length;
    r.engine.shells = [view('sh-a'), view('sh-stage', { name: 'stage g1:build#1' })];
    r.transport.deliver({ t: 'event', event: { id: 7, at: 'now', kind: 'handoff.created', actor: 'agent', subject: 'h1', data: null } });
    await settle();
    expect(r.transport.calls('shell_list').length).toBe(before);
    r.transport.deliver({ t: 'event', event: { id: 8, at: 'now', kind: 'graph.stage', actor: null, subject: 'g1', data: null } });
    await settle();
    expect(r.shells.getState().shells.map((s) => s.id)).toEqual(['sh-a', 'sh-stage']);
  });

  it("the room's shells-changed hint (an agent opened one) triggers a re-read, with nothing polling", async () => {
    const r = room([view('sh-a')]);
    r.transport.link('open');
    await settle();
    const before = r.transport.calls('shell_list').length;
    r.engine.shells = [view('sh-a'), view('sh-new')];
    await settle();
    expect(r.transport.calls('shell_list').length).toBe(before); // no hint, no re-read
    r.transport.deliver({ t: 'shells.changed' });
    await settle();
    expect(r.shells.getState().shells.map((s) => s.id)).toEqual(['sh-a', 'sh-new']);
  });

  it('many hints during one re-read fold into a single re-read after it', async () => {
    const r = room([view('sh-a')]);
    r.transport.link('open');
    const before = r.transport.calls('shell_list').length; // the re-read the link opening started, still in flight
    for (let i = 0; i < 5; i++) r.transport.deliver({ t: 'event', event: { id: i, at: 'now', kind: 'graph.run', actor: null, subject: null, data: null } });
    await settle();
    await settle();
    expect(r.transport.calls('shell_list').length).toBe(before + 1);
  });

  it('a shell exit heard on its attachment shows at once', async () => {
    const r = room([view('sh-a')]);
    r.transport.link('open');
    await settle();
    r.shells.getState().shellExited('sh-a', { exitCode: null, signal: 'SIGTERM' });
    expect(r.shells.getState().shells[0]).toMatchObject({ alive: false, signal: 'SIGTERM' });
  });

  it('a failed re-read keeps the last list and says what failed', async () => {
    const r = room([view('sh-a')]);
    r.transport.link('open');
    await settle();
    r.transport.answer = null;
    const reread = r.shells.getState().refresh();
    const call = r.transport.calls('shell_list').at(-1)!;
    r.transport.deliver({ t: 'result', id: call.id, ok: false, error: { code: 'INTERNAL', message: 'the room is closing' } });
    await reread;
    expect(r.shells.getState().shells.map((s) => s.id)).toEqual(['sh-a']);
    expect(r.shells.getState().error).toBe('could not read the shells: the room is closing');
  });

  it('opening a shell selects it', async () => {
    const r = room([view('sh-a')]);
    r.transport.link('open');
    await settle();
    r.transport.answer = (method) => {
      if (method === 'shell_open') {
        r.engine.shells = [...r.engine.shells, view('sh-new', { owner: 'operator' })];
        return { shell: r.engine.shells.at(-1) };
      }
      return { shells: r.engine.shells };
    };
    await r.shells.getState().openShell();
    expect(r.shells.getState().selectedId).toBe('sh-new');
    expect(r.shells.getState().shells.map((s) => s.id)).toEqual(['sh-a', 'sh-new']);
  });
});
