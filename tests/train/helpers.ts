import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRunConfig } from '../../trainer-core/config';
import type { RunConfig } from '../../trainer-core/config/schema';
import { MemorySink } from '../../trainer-core/train/sink';
import { train, type TrainOptions } from '../../trainer-core/train/trainer';

export const BANDIT_CONFIG = join(import.meta.dirname, '../../configs/bandit.yaml');

export function tempDir(prefix: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), `turnlab-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Overrides that shrink the bandit config for tests: a tiny model and few episodes, on wasm. */
export const TINY_BANDIT_OVERRIDES = [
  'trainer.backend=wasm',
  'model.n_layer=1',
  'model.d_model=32',
  'model.d_ff=64',
  'es_manager.train.env_groups=2',
  'es_manager.train.env_configs.n_groups=[2]',
  'es_manager.train.group_size=4',
  'es_manager.val.env_groups=4',
  'es_manager.val.env_configs.n_groups=[4]',
  'ppo_mini_batch_size=4',
  'micro_batch_size_per_gpu=2',
  'warm_start.steps=5',
];

/** The bandit config shrunk for tests (TINY_BANDIT_OVERRIDES), then `overrides`. */
export function tinyBanditConfig(overrides: string[] = []): RunConfig {
  return loadRunConfig(BANDIT_CONFIG, [...TINY_BANDIT_OVERRIDES, ...overrides]);
}

export async function trainInMemory(config: RunConfig, options: Partial<TrainOptions> & { checkpointDir: string }) {
  const sink = new MemorySink();
  const result = await train({ config, sink, ...options });
  return { sink, result };
}

/** Metrics without the wall-clock ones, which differ between any two runs. */
export function withoutTimings(metrics: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(metrics).filter(([k]) => !k.startsWith('timing_s/') && !k.startsWith('perf/') || k === 'perf/total_generated_tokens'));
}
