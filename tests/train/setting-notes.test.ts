// Settings that are valid but not what their numbers say (a micro-batch clamped to its
// mini-batch, LoRA keys without a rank, a warm start on a pretrained model) are said as the run
// starts, and no shipped config says any of them.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { settingNotes } from '../../trainer-core/compute';
import { episodesPerUpdate } from '../../trainer-core/train/setting-notes';
import { prepareRun } from '../../main/services/prepare-run';
import { repoRoot } from '../helpers/turnlab-cli';

const config = (name: string, overrides: string[] = []) => loadRunConfig(join(repoRoot, 'configs', name), overrides);
const SMALL = ['es_manager.train.env_groups=2', 'es_manager.train.group_size=2', 'es_manager.train.env_configs.n_groups=[2]'];

describe('setting notes', () => {
  it('says nothing for a shipped config as it is', () => {
    const names = readdirSync(join(repoRoot, 'configs')).filter((f) => f.endsWith('.yaml'));
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) expect([name, settingNotes(config(name))]).toEqual([name, []]);
  });

  it('counts the episodes an update gets after the rollout filter', () => {
    expect(episodesPerUpdate(config('base.yaml'))).toBe(32);
    expect(episodesPerUpdate(config('bandit.yaml', SMALL))).toBe(4);
    expect(episodesPerUpdate(config('base.yaml', ['rollout_filter_ratio=0.01']))).toBe(16);
  });

  it('says a mini-batch is clamped to the episodes an update gets, and a micro-batch to its mini-batch', () => {
    expect(settingNotes(config('bandit.yaml', [...SMALL, 'ppo_mini_batch_size=64', 'micro_batch_size_per_gpu=64']))).toEqual([
      'note: actor_rollout_ref.actor.ppo_mini_batch_size (64) is more than the 4 episodes an update gets (es_manager.train.env_groups 2 x group_size 2), so each epoch is one mini-batch of 4: one optimiser step',
      'note: actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu (64) is more than the mini-batch of 4 episodes, so each mini-batch is one micro-batch of 4',
    ]);
    expect(settingNotes(config('base.yaml', ['rollout_filter_ratio=0.125']))[0]).toContain('(es_manager.train.env_groups 8 x group_size 16 of which rollout_filter_ratio 0.125 keeps 1 groups)');
  });

  it("names the critic's batch too when GAE trains one", () => {
    const notes = settingNotes(config('bandit.yaml', ['algorithm.adv_estimator=gae', 'critic.ppo_micro_batch_size_per_gpu=3']));
    expect(notes).toEqual([
      'note: critic.ppo_mini_batch_size (16) is not a multiple of ppo_micro_batch_size_per_gpu (3), so each mini-batch is split into micro-batches of at most 3 episodes (verl asks for a multiple; the loss is the same either way)',
    ]);
    expect(settingNotes(config('bandit.yaml', ['critic.ppo_micro_batch_size_per_gpu=3']))).toEqual([]);
  });

  it('says LoRA keys without a rank train every weight', () => {
    const hf = ['actor_rollout_ref.model.path=/models/qwen', 'actor_rollout_ref.model.lora_alpha=32', 'actor_rollout_ref.model.target_modules=[q_proj]'];
    expect(settingNotes(config('bandit.yaml', [...hf, 'warm_start.steps=0']))).toEqual([
      'note: actor_rollout_ref.model.lora_alpha and actor_rollout_ref.model.target_modules are set, but actor_rollout_ref.model.lora_rank is 0, so no adapters are made and ' +
        'every weight of the pretrained model trains (full fine-tuning); set lora_rank (8, say) to train LoRA adapters',
    ]);
    expect(settingNotes(config('bandit.yaml', [...hf, 'warm_start.steps=0', 'actor_rollout_ref.model.lora_rank=8']))).toEqual([]);
  });

  it("says a shipped config's warm start runs on a pretrained model, and not on a resume", () => {
    const cfg = config('sokoban.yaml', ['actor_rollout_ref.model.path=/models/qwen', 'actor_rollout_ref.model.lora_rank=8']);
    expect(settingNotes(cfg)).toEqual([
      "note: the warm start imitates the solver's moves for 2500 steps at warm_start.lr 0.002 on the pretrained model before RL begins; " +
        'RAGEN starts RL from the model as it is: add warm_start.steps=0 to do the same',
    ]);
    expect(settingNotes(cfg, { resuming: true })).toEqual([]);
    expect(settingNotes(config('sokoban.yaml'))).toEqual([]);
  });

  it('is logged as the run is prepared, before any run exists', async () => {
    const lines: string[] = [];
    await prepareRun(config('bandit.yaml', ['trainer.backend=wasm', 'micro_batch_size_per_gpu=64']), repoRoot, { log: (line) => lines.push(line) });
    expect(lines.filter((l) => l.startsWith('note: actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu (64)'))).toHaveLength(1);
  });
});
