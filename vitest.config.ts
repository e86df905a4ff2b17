import { defineConfig } from 'vitest/config';

// Sized for a 2-core machine: real processes, PTYs and HTTP servers in every suite, so at most two files run
// at once. Benchmarks live in bench/; only their seconds-long smoke (test/bench/smoke.test.ts) runs here.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
