import { defineConfig } from 'vitest/config';

/**
 * The suites that prove process trees end (TERM-ignoring children, setsid, double fork, nohup, restart
 * reconciliation with orphans) run twice: on the platform's default backend (/proc here) and on the POSIX
 * `ps` backend macOS uses, so both are proven on Linux CI with 0 survivors.
 */
const PROCESS_TREE_SUITES = [
  'test/engine/process-tree.test.ts',
  'test/engine/graphs/graph-cancel.test.ts',
  'test/engine/graphs/graph-kill.test.ts',
  'test/engine/shells/shells.test.ts',
  'test/cli/serve.test.ts',
];

// Sized for a 2-core machine: real processes, PTYs and HTTP servers in every suite, so at most two files run
// at once. Benchmarks live in bench/; only their seconds-long smoke (test/bench/smoke.test.ts) runs here.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    // the real Claude Code updates itself from the npm registry when it may (\`npm i -g\` of its newest release, seen
    // here in a probe run outside the sandbox): no test reaches the registry or changes the machine's global packages
    env: { DISABLE_AUTOUPDATER: '1' },
    projects: [
      // the real agent CLIs, installed on first run into a cache outside the checkout when a file of the run needs
      // them (test/helpers/real-clients-setup.ts); COMMONROOM_TEST_CLIENTS=skip skips those files instead
      { extends: true, test: { name: 'default', include: ['test/**/*.test.ts'], globalSetup: ['test/helpers/real-clients-setup.ts'] } },
      // each look at the table runs `ps` (~20 ms on a Mac, 100 ms and more on a loaded shared CI box): the
      // restart rounds and shell cycles need more than the default budget there
      {
        extends: true,
        test: { name: 'ps-backend', include: PROCESS_TREE_SUITES, env: { COMMONROOM_PROCESS_BACKEND: 'ps' }, testTimeout: 600_000 },
      },
    ],
  },
});
