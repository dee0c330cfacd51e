import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { Rng } from '../../trainer-core/rng';
import { fitRunTokenizer } from '../../trainer-core/train/models';
import { createContextManager } from '../../trainer-core/rollout/rollout-loop';
import { collectDemonstrations } from '../../trainer-core/train/demonstrations';

const SOKOBAN = join(import.meta.dirname, '../../configs/sokoban.yaml');

function demonstrations(overrides: string[]) {
  const cfg = loadRunConfig(SOKOBAN, ['es_manager.train.env_groups=2', 'es_manager.train.group_size=4', 'es_manager.train.env_configs.n_groups=[2]', ...overrides]);
  const tokenizer = fitRunTokenizer(cfg);
  return collectDemonstrations({ cfg, cm: createContextManager(cfg, tokenizer), tokenizer, rng: new Rng(1) });
}

describe('warm-start demonstrations', () => {
  it('without warm_start.episodes, are four train rollouts, a group repeating its start state', () => {
    const demos = demonstrations(['warm_start.episodes=null']);
    // 4 rollouts x 8 envs, less the rooms the solver gives up on; 2 start states per rollout.
    expect(demos.length).toBeGreaterThan(16);
    expect(demos.length).toBeLessThanOrEqual(32);
    expect(new Set(demos.map((d) => d.text)).size).toBeLessThanOrEqual(8);
  });

  it('with warm_start.episodes, are that many, each from its own start state', () => {
    const demos = demonstrations(['warm_start.episodes=40']);
    expect(demos).toHaveLength(40);
    expect(new Set(demos.map((d) => d.text)).size).toBe(40);
    expect(demos.every((d) => d.sequence.lossMask.some((m) => m === 1))).toBe(true);
  });
});
