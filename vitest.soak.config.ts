import { defineConfig } from 'vitest/config';

/**
 * `npm run soak`: the long reliability runs of test/soak/ at full size (SOAK_SCALE=full), one file at a time so
 * the figures are not skewed by each other on a 2-core machine. Not part of `npm test`, which runs the same code
 * at small counts (test/reliability/soak-fast.test.ts).
 */
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    include: ['test/soak/**/*.soak.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 120_000,
    env: { SOAK_SCALE: process.env.SOAK_SCALE ?? 'full' },
  },
});
