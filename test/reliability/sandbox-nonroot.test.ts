/**
 * The sandbox suites pass as a normal user, not only as root. Real users are not root, and bubblewrap as a
 * normal user needs unprivileged user namespaces (which Ubuntu's AppArmor may refuse): a run as root (CI) runs
 * test/reliability/agent-sandbox.test.ts and any agent-walls*, room-git* suites once more as NONROOT_USER
 * (.ci/run creates it), from a linked copy of the checkout, and fails when a test fails there, or when the
 * sandbox tests were skipped there while bubblewrap works for root. Not root, this run already is that normal
 * user's; without the user, skipped with how to add it.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../../src-main/engine/process/agent-sandbox';
import { NONROOT_USER, runAsUser, sandboxSuites, userIds } from '../helpers/nonroot';

const TIMEOUT_MS = 300_000;

function whySkip(): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return 'not a POSIX system: there is no root to run as another user from';
  if (uid !== 0) return `running as uid ${uid}, not root: the sandbox suites of this run already ran as a normal user`;
  if (!userIds(NONROOT_USER)) {
    return `no user ${NONROOT_USER} here: to run the sandbox suites as a normal user too, add one (useradd --system ${NONROOT_USER}, as .ci/run does) and run npm test again as root`;
  }
  if (spawnSync('runuser', ['--version']).status !== 0) return 'runuser (util-linux) is missing: it runs the suites as the normal user';
  const sandbox = detectSandbox();
  if (sandbox.kind === 'none') return `no sandbox here even for root (${sandbox.reason}): the sandbox suites are skipped for every user`;
  return null;
}

describe('the sandbox suites as a normal user', () => {
  it(`pass as ${NONROOT_USER}, none skipped, when bubblewrap works for root`, { timeout: TIMEOUT_MS + 30_000 }, async (ctx) => {
    const skip = whySkip();
    if (skip) return ctx.skip(skip);
    const files = sandboxSuites();
    expect(files).toContain('test/reliability/agent-sandbox.test.ts');
    const owner = userIds(NONROOT_USER);
    if (!owner) throw new Error(`user ${NONROOT_USER} disappeared`);
    const run = await runAsUser(NONROOT_USER, owner, files, TIMEOUT_MS);
    const tail = run.output.split('\n').slice(-60).join('\n');
    expect(run.status, `vitest as ${NONROOT_USER} exited ${run.status}:\n${tail}`).toBe(0);
    expect(run.reportUid, 'the tests did not run as the user').toBe(owner.uid);
    expect(run.tests.length, `no tests ran as ${NONROOT_USER}:\n${tail}`).toBeGreaterThan(0);
    const notPassed = run.tests.filter((t) => t.status !== 'passed');
    // a skip as a normal user, with bubblewrap working for root, is the OS refusing user namespaces to users:
    // exactly what this run is for (the reason is in the suite's title)
    expect(notPassed.map((t) => `${t.status}: ${t.fullName}`), `as ${NONROOT_USER}, not every sandbox test passed`).toEqual([]);
  });
});
