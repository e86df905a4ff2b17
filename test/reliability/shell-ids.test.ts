import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src-main/common/dto';
import { BASH, shellBench, type ShellBench } from '../engine/shells/helpers';

let bench: ShellBench;
let owner: Caller;
let other: Caller;

beforeAll(async () => {
  bench = await shellBench();
  for (const name of ['owner', 'other']) await bench.engine.call(bench.operator, 'participant_add', { name, capabilities: ['read', 'write'] });
  owner = { name: 'owner', role: 'agent', capabilities: ['read', 'write'] };
  other = { name: 'other', role: 'agent', capabilities: ['read', 'write'] };
});
afterAll(() => bench.close());

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'answered',
    (e: Error & { code?: string }) => `${e.code}: ${e.message}`,
  );

describe("a closed shell's id", () => {
  it('answers another participant exactly as a made-up id does, on every shell method and the shell log', async () => {
    const shell = await bench.open({ ...BASH }, owner);
    await bench.engine.call(owner, 'shell_close', { shellId: shell.id });
    const madeUp = shell.id.replace(/-[0-9a-f]+$/, '-0123456789');
    const calls = (id: string) => [
      refusal(bench.engine.call(other, 'shell_io', { shellId: id })),
      refusal(bench.engine.call(other, 'shell_close', { shellId: id })),
      refusal(Promise.resolve().then(() => bench.engine.shells.readLog(other, id, 0, 10))),
    ];
    const theirs = await Promise.all(calls(shell.id));
    const unknown = await Promise.all(calls(madeUp));
    expect(theirs.map((t) => t.replace(shell.id, 'ID'))).toEqual(unknown.map((u) => u.replace(madeUp, 'ID')));
    expect(theirs.join()).not.toMatch(/closed/);
    // the owner still gets the helpful message
    expect(await refusal(bench.engine.call(owner, 'shell_io', { shellId: shell.id }))).toMatch(/it was closed/);
  });
});
