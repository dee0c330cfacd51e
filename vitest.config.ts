import { defineConfig } from 'vitest/config';
import { SkipReporter } from './tests/setup/skip-reporter';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // The CI machine has 2 cores; spawned CLI processes and native builds need headroom.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // After the summary, one line per skipped suite: what is missing and how to install it.
    reporters: ['default', new SkipReporter()],
  },
});
