import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRunConfig } from '../../trainer-core/config';
import type { RunConfig } from '../../trainer-core/config/schema';
import { MemorySink } from '../../trainer-core/train/sink';
import { train, type TrainOptions } from '../../trainer-core/train/trainer';
import { TINY_BANDIT_OVERRIDES } from '../helpers/tiny-bandit';

export { TINY_BANDIT_OVERRIDES };

export const BANDIT_CONFIG = join(import.meta.dirname, '../../configs/bandit.yaml');

export function tempDir(prefix: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), `turnlab-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The bandit config shrunk for tests (TINY_BANDIT_OVERRIDES), then `overrides`. */
export function tinyBanditConfig(overrides: string[] = []): RunConfig {
  return loadRunConfig(BANDIT_CONFIG, [...TINY_BANDIT_OVERRIDES, ...overrides]);
}

/** Trains into a MemorySink; `stopAfter: N` asks the run to stop once iteration N is recorded. */
export async function trainInMemory(config: RunConfig, options: Partial<TrainOptions> & { checkpointDir: string; stopAfter?: number }) {
  const sink = new MemorySink();
  const { stopAfter, ...rest } = options;
  const shouldStop = stopAfter === undefined ? rest.shouldStop : () => sink.metrics.has(stopAfter);
  const result = await train({ config, sink, ...rest, shouldStop });
  return { sink, result };
}

/** Metrics without the wall-clock ones, which differ between any two runs (the running totals stay). */
export function withoutTimings(metrics: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(metrics).filter(([k]) => !k.startsWith('timing_s/') && !k.startsWith('perf/') || k.startsWith('perf/total_')));
}

/** The model keys the RAGEN-config tests change: the tiny Qwen2 folder at `modelDir`, LoRA rank 4, micro-batch 4, on wasm. */
export function pretrainedModelKeys(modelDir: string): string[] {
  return [
    'trainer.backend=wasm',
    `actor_rollout_ref.model.path=${modelDir}`,
    'actor_rollout_ref.model.lora_rank=4',
    'actor_rollout_ref.model.lora_alpha=8',
    'micro_batch_size_per_gpu=4',
  ];
}
