import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir, tinyBanditConfig, trainInMemory } from './helpers';

const tmp = tempDir('zero-std');
afterAll(() => tmp.cleanup());

const common = ['trainer.total_training_steps=3', 'trainer.test_freq=0', 'trainer.save_freq=0', 'rollout_filter_ratio=1', 'rollout_filter_include_zero=false'];

describe('rollout_filter_include_zero: false', () => {
  it('trains only on the groups whose episodes scored differently', async () => {
    // A warm start that teaches the format, and eight episodes per group: a group that draws both
    // arms, or the high arm paying and not paying, scores differently.
    const { sink } = await trainInMemory(tinyBanditConfig([...common, 'es_manager.train.group_size=8', 'warm_start.steps=40', 'warm_start.lr=0.01']), { checkpointDir: join(tmp.dir, 'mixed') });
    expect(sink.status).toBe('completed');
    let keptGroups = 0;
    for (const [iteration, metrics] of sink.metrics) {
      const train = sink.episodes.filter((e) => e.iteration === iteration && e.split === 'train');
      const scoresByGroup = new Map<number, Set<number>>();
      for (const e of train) scoresByGroup.set(e.groupId, (scoresByGroup.get(e.groupId) ?? new Set()).add(e.totalReward));
      const mixed = [...scoresByGroup.values()].filter((s) => s.size > 1).length;
      expect(metrics['rollout/zero_std_groups']).toBe(scoresByGroup.size - mixed);
      expect(metrics['batch/kept_episodes']).toBe(train.filter((e) => !e.filteredOut).length);
      for (const e of train) expect(e.filteredOut).toBe(scoresByGroup.get(e.groupId)!.size === 1);
      keptGroups += mixed;
    }
    expect(keptGroups).toBeGreaterThan(0);
  });

  it('skips the update when every group scored alike', async () => {
    // One episode per group: no group has any spread, so nothing is left to train on.
    const { sink } = await trainInMemory(tinyBanditConfig([...common, 'es_manager.train.group_size=1']), { checkpointDir: join(tmp.dir, 'alike') });
    expect(sink.status).toBe('completed');
    for (const metrics of sink.metrics.values()) {
      expect(metrics['batch/kept_episodes']).toBe(0);
      expect(metrics).not.toHaveProperty('actor/pg_loss');
    }
  });
});
