// Test files that need a process of their own. The rest share their worker's modules with the
// files run before them (vitest.config.ts): tfjs, the store and the trainer are loaded once a
// worker instead of once a file. A file belongs here when it changes what a later file would load
// or read: a module mocked with vi.mock (the mock applies only where the module is not loaded
// yet), or a registry it adds to for the rest of the process. tests/setup/isolation.test.ts keeps
// every vi.mock user on this list.
export const ISOLATED_FILES: Record<string, string> = {
  'tests/train/gigpo-training.test.ts': 'mocks trainer-core/algo/gigpo to watch computeGigpo',
  'tests/train/turn-shaping-training.test.ts': 'mocks trainer-core/algo/grpo to watch its input',
  'tests/train/custom-estimator.test.ts': 'registers two estimators, and first checks that the config refuses them',
};
