import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../src-main/common/dto';
import type { EventView } from '../../../src-main/common/handoff-dto';
import { shellBench, type ShellBench } from './helpers';

// a shell's life in Activity: shell.opened and shell.ended, in the room's history (workspace_history), seen by
// its owner and the person, never by another agent
let bench: ShellBench;
let asA: Caller;
let asB: Caller;

async function history(as: Caller): Promise<EventView[]> {
  const out: EventView[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await bench.engine.call(as, 'workspace_history', { limit: 200, ...(cursor ? { cursor } : {}) });
    out.push(...page.events);
    cursor = page.nextCursor;
    if (!page.more) return out;
  }
}

async function until<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const found = await read();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  bench = await shellBench();
  const op = bench.operator;
  const a = await bench.engine.call(op, 'participant_add', { name: 'agent-a', capabilities: ['read', 'write'] });
  const b = await bench.engine.call(op, 'participant_add', { name: 'agent-b', capabilities: ['read', 'write'] });
  asA = bench.engine.authenticate(a.token)!;
  asB = bench.engine.authenticate(b.token)!;
});
afterAll(() => bench.close());

describe('shell events', () => {
  it('records who opened a shell and who closed it, for its owner and the person only', async () => {
    const shell = await bench.open({ name: 'build shell' }, asA);
    await bench.engine.call(bench.operator, 'shell_close', { shellId: shell.id });
    const ended = await until(async () => (await history(asA)).find((e) => e.kind === 'shell.ended' && e.subject === shell.id));
    expect(ended).toMatchObject({ actor: 'operator', data: { name: 'build shell', owner: 'agent-a', closed: true } });
    const opened = (await history(asA)).find((e) => e.kind === 'shell.opened' && e.subject === shell.id);
    expect(opened).toMatchObject({ actor: 'agent-a', data: { name: 'build shell', owner: 'agent-a' } });
    expect((await history(bench.operator)).filter((e) => e.subject === shell.id).map((e) => e.kind)).toEqual(['shell.opened', 'shell.ended']);
    expect((await history(asB)).some((e) => e.kind.startsWith('shell.'))).toBe(false);
  });

  it('credits a shell that ended by itself to its owner, with its exit code', async () => {
    const shell = await bench.open({ shell: '/bin/sh', args: ['-c', 'exit 3'], name: 'short-lived' }, asA);
    const ended = await until(async () => (await history(asA)).find((e) => e.kind === 'shell.ended' && e.subject === shell.id));
    expect(ended).toMatchObject({ actor: 'agent-a', data: { exitCode: 3, closed: false } });
  });
});

describe("a plain shell's status", () => {
  it('reads busy while a quiet command runs and idle at its prompt', async () => {
    const shell = await bench.open({}, asA);
    await bench.io({ shellId: shell.id, text: 'sleep 30\n' }, asA);
    // quiet past the tracker's 1.5 s, yet never idle while sleep runs
    const during = await bench.io({ shellId: shell.id, wait: { until: 'status', status: ['idle'], timeoutMs: 4_000 } }, asA);
    expect(during.wait?.reason).toBe('timeout');
    expect(during.status).toMatchObject({ state: 'working', reason: 'a command is running' });
    await bench.io({ shellId: shell.id, input: [{ key: 'C-c' }] }, asA);
    const after = await bench.io({ shellId: shell.id, wait: { until: 'status', status: ['idle'], timeoutMs: 20_000 } }, asA);
    expect(after.wait?.reason).toBe('status');
    expect(after.status.state).toBe('idle');
  }, 40_000);
});
