import { execFile, spawnSync } from 'node:child_process';
import { findOnPath } from './find-on-path';
import { LAUNCH_PATH } from './sandbox-launch';

/**
 * Whether bubblewrap can make the agent sandbox here (agent-sandbox.ts's detection asks): the probe, run when
 * the detection needs it, or ahead of it without blocking (`commonroom serve`, beside the room's opening).
 */

/** The probe: bubblewrap with the namespaces the sandbox uses, running `true`. */
const PROBE_ARGS = ['--ro-bind', '/', '/', '--dev-bind', '/dev', '/dev', '--unshare-pid', '--proc', '/proc', '--die-with-parent', '--', 'true'];
const PROBE_OPTIONS = { timeout: 5000, encoding: 'utf8', env: { PATH: LAUNCH_PATH } } as const;
const firstLine = (text: string) => text.trim().split('\n')[0] ?? '';

/** Answers of probes run ahead (probeSandboxAhead) by program, each taken by the next detection that would run it. */
const ahead = new Map<string, { ok: boolean; why: string }>();

/**
 * Runs the probe now, without blocking (a bubblewrap process, ~10 ms), so that the detection a moment later
 * takes its answer instead of running it synchronously: `commonroom serve` starts it beside the room's opening
 * and prints its banner (which names the sandbox) once it is done. What is probed is the same; only when.
 */
export function probeSandboxAhead(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Promise<void> {
  const program = platform === 'linux' && env.COMMONROOM_SANDBOX !== 'off' ? findOnPath('bwrap', env.PATH ?? '') : null;
  if (!program) return Promise.resolve();
  return new Promise((resolve) => {
    execFile(program, PROBE_ARGS, PROBE_OPTIONS, (error, _stdout, stderr) => {
      const signal = (error as { signal?: string } | null)?.signal;
      const code = (error as { code?: unknown } | null)?.code;
      ahead.set(program, error ? { ok: false, why: firstLine(stderr || (typeof code === 'number' || signal ? `exit ${typeof code === 'number' ? code : signal}` : error.message)) } : { ok: true, why: '' });
      resolve();
    });
  });
}

/** The probe's answer for `program`: the one run ahead, if it ended, else a run now (synchronous: detection is). */
export function runProbe(program: string): { ok: boolean; why: string } {
  const early = ahead.get(program);
  if (early) {
    ahead.delete(program);
    return early;
  }
  const probe = spawnSync(program, PROBE_ARGS, PROBE_OPTIONS);
  if (probe.status === 0) return { ok: true, why: '' };
  return { ok: false, why: firstLine(probe.stderr || probe.error?.message || `exit ${probe.status ?? probe.signal}`) };
}
