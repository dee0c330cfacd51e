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
    // llvmpipe (the WebGPU tests' software Vulkan) compiles each pipeline at its first dispatch;
    // without LLVM's optimisation passes a fresh machine's cold compiles, CI's case, take some
    // 55 CPU s less over the WebGPU files, and the slower kernels cost little at the tests' sizes
    // (docs/test-suite-time.md). A value set outside wins.
    env: { GALLIVM_PERF: process.env.GALLIVM_PERF ?? 'nopt' },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // After the summary, one line per skipped suite: what is missing and how to install it.
    reporters: ['default', new SkipReporter()],
  },
});
