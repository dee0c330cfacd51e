import { configDefaults, defineConfig } from 'vitest/config';
import { ISOLATED_FILES } from './tests/setup/isolated-files';
import { LongestFirstSequencer } from './tests/setup/sequencer';
import { SkipReporter } from './tests/setup/skip-reporter';

const isolated = Object.keys(ISOLATED_FILES);

export default defineConfig({
  test: {
    // The CI machine has 2 cores. A third worker fills the time the others wait on Slurm, a
    // browser or a trainer child: two quiet fresh-clone runs took 551 and 523 s with 3, against
    // 554-590 s with 2 the same day (docs/test-suite-time.md).
    maxWorkers: 3,
    // Longest files first by their measured seconds, new files before them (tests/setup/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    // llvmpipe (the WebGPU tests' software Vulkan) compiles each pipeline at its first dispatch;
    // without LLVM's optimisation passes a fresh machine's cold compiles, CI's case, take some
    // 55 CPU s less over the WebGPU files, and the slower kernels cost little at the tests' sizes
    // (docs/test-suite-time.md). Vectors of 4 lanes, not AVX2's 8, halve the code LLVM compiles
    // for each pipeline: a third less CPU over those files cold, a few seconds more warm. Values
    // set outside win.
    env: { GALLIVM_PERF: process.env.GALLIVM_PERF ?? 'nopt', LP_NATIVE_VECTOR_WIDTH: process.env.LP_NATIVE_VECTOR_WIDTH ?? '128' },
    // Spies (vi.spyOn) are put back before each test: a worker's later files share the objects spied on.
    restoreMocks: true,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // After the summary, one line per skipped suite: what is missing and how to install it.
    reporters: ['default', new SkipReporter()],
    projects: [
      // A worker keeps its modules from one file to the next: loading tfjs, the store and the
      // trainer once a worker, not once a file, is some 75 s of a fresh machine's run.
      { extends: true, test: { name: 'shared', include: ['tests/**/*.test.ts'], exclude: [...configDefaults.exclude, ...isolated], isolate: false } },
      // Files that change what a later file loads (tests/setup/isolated-files.ts).
      { extends: true, test: { name: 'isolated', include: isolated, isolate: true } },
    ],
  },
});
