import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './tests/setup/sequencer';
import { SkipReporter } from './tests/setup/skip-reporter';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // The CI machine has 2 cores; spawned CLI processes and native builds need headroom.
    maxWorkers: 2,
    // Longest files first by their measured seconds, new files before them (tests/setup/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // After the summary, one line per skipped suite: what is missing and how to install it.
    reporters: ['default', new SkipReporter()],
  },
});
