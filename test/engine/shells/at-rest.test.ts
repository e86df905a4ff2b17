import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../../src-main/common/dto';
import { shellBench, type ShellBench } from './helpers';

/**
 * A REPL at its prompt and an editor at rest wait for the person's keys: their terminals read idle, not busy,
 * though a command runs in them; a command that sleeps or works quietly still reads busy. Real processes (Python,
 * Debian's vim) in the room's own terminals, as the person and as an agent (in its sandbox).
 */
const PYTHON = ['/usr/bin/python3', '/usr/local/bin/python3'].find((f) => fs.existsSync(f));
const VIM = ['/usr/bin/vim', '/usr/bin/vi'].find((f) => fs.existsSync(f));
const linux = process.platform === 'linux';

let bench: ShellBench;
let asAgent: Caller;
beforeAll(async () => {
  bench = await shellBench();
  const a = await bench.engine.call(bench.operator, 'participant_add', { name: 'agent-a', capabilities: ['read', 'write'] });
  asAgent = bench.engine.authenticate(a.token)!;
});
afterAll(() => bench.close());

/** Types `text`, waits until `screen` is drawn, then for the status to settle past the quiet time (1.5 s). */
async function runAndSettle(as: Caller, text: string, screen: RegExp) {
  const shell = await bench.open({}, as);
  await bench.io({ shellId: shell.id, text }, as);
  await expect.poll(async () => (await bench.io({ shellId: shell.id, format: 'screen' }, as)).output, { timeout: 20_000, interval: 200 }).toMatch(screen);
  // a later quiet read: idle shows within the wait; busy stays for the whole of it
  const settled = await bench.io({ shellId: shell.id, wait: { until: 'status', status: ['idle'], timeoutMs: 4_000 } }, as);
  return { shell, settled };
}

describe.skipIf(!linux || !PYTHON || !VIM)(`a command waiting for keys reads idle${!linux ? ' (skipped: read from Linux /proc)' : !PYTHON || !VIM ? ' (skipped: needs python3 and vim)' : ''}`, () => {
  for (const who of ['the person', 'an agent'] as const) {
    it(`${who}: Python's REPL at >>> reads idle, and busy while it runs a quiet statement`, { timeout: 40_000 }, async () => {
      const as = who === 'the person' ? bench.operator : asAgent;
      const { shell, settled } = await runAndSettle(as, `${PYTHON} -q\n`, /^>>> ?$/m);
      expect(settled.status.state).toBe('idle');
      await bench.io({ shellId: shell.id, text: 'import time; time.sleep(30)\n' }, as);
      await bench.io({ shellId: shell.id, wait: { until: 'status', status: ['working'], timeoutMs: 10_000 } }, as); // its echo
      const sleeping = await bench.io({ shellId: shell.id, wait: { until: 'status', status: ['idle'], timeoutMs: 4_000 } }, as);
      expect(sleeping.wait?.reason).toBe('timeout');
      expect(sleeping.status).toMatchObject({ state: 'working', reason: 'a command is running' });
    });

    it(`${who}: vim at rest reads idle`, { timeout: 40_000 }, async () => {
      const as = who === 'the person' ? bench.operator : asAgent;
      const { settled } = await runAndSettle(as, `${VIM} -u NONE -i NONE -N\n`, /^~/m);
      expect(settled.status.state).toBe('idle');
    });
  }
});
