/**
 * The sandbox probe run ahead (probeSandboxAhead: `commonroom serve` starts it beside the room's opening): the
 * detection after it answers what the probe found, without running bubblewrap again, and says why when the probe
 * failed, as a probe run by the detection itself does. A stand-in `bwrap` on the PATH counts its runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../src-main/engine/process/agent-sandbox';
import { probeSandboxAhead } from '../../src-main/engine/process/sandbox-probe';

let root: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'commonroom-probe-')));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** A `bwrap` that appends a line to `runs` each time it runs, then exits with `status` (saying `why` on stderr). */
function standIn(status: number, why = ''): { env: NodeJS.ProcessEnv; runs: () => number; program: string } {
  const bin = path.join(root, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const count = path.join(root, 'runs');
  const program = path.join(bin, 'bwrap');
  fs.writeFileSync(program, `#!/bin/sh\necho run >> '${count}'\n${why ? `echo '${why}' >&2\n` : ''}exit ${status}\n`, { mode: 0o755 });
  const runs = () => (fs.existsSync(count) ? fs.readFileSync(count, 'utf8').split('\n').filter((l) => l !== '').length : 0);
  return { env: { PATH: bin }, runs, program };
}

describe('the sandbox probe run ahead', () => {
  it('is what the next detection answers, without a second run; a later detection probes again', async () => {
    const s = standIn(0);
    await probeSandboxAhead(s.env, 'linux');
    expect(s.runs()).toBe(1);
    expect(detectSandbox(s.env, 'linux')).toEqual({ kind: 'bubblewrap', program: s.program });
    expect(s.runs()).toBe(1);
    expect(detectSandbox(s.env, 'linux')).toEqual({ kind: 'bubblewrap', program: s.program });
    expect(s.runs()).toBe(2);
  });

  it('a failed probe: the detection says why, as when it probes itself', async () => {
    const s = standIn(1, 'setting up uid map: Permission denied');
    await probeSandboxAhead(s.env, 'linux');
    const ahead = detectSandbox(s.env, 'linux', { readFile: () => null });
    const itself = detectSandbox(s.env, 'linux', { readFile: () => null });
    expect(s.runs()).toBe(2);
    expect(ahead).toEqual(itself);
    expect(ahead).toEqual({ kind: 'none', reason: expect.stringMatching(/^bubblewrap cannot make a sandbox here \(setting up uid map: Permission denied\)/) });
  });

  it('runs nothing where the sandbox is turned off or is not bubblewrap', async () => {
    const s = standIn(0);
    await probeSandboxAhead({ ...s.env, COMMONROOM_SANDBOX: 'off' }, 'linux');
    await probeSandboxAhead(s.env, 'darwin');
    expect(s.runs()).toBe(0);
  });
});
