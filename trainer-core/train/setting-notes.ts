import type { RunConfig } from '../config/schema';
import { differsFromDefault } from '../config/defaults';
import { algorithmNotes } from './algorithm-notes';
import { keptGroupCount } from '../rollout/rollout-filter';
import { modelRoles } from './models';
import { trainSeedOverlap } from './train-seeds';

/**
 * Settings that are valid but do not do what their numbers say: the update clamps a micro-batch
 * to its mini-batch and a mini-batch to the episodes an update gets, LoRA keys mean nothing
 * without a rank, and a shipped config's warm start imitates the solver on a pretrained model.
 * verl refuses the first two; TurnLab runs them as the notes say, so a researcher tuning the
 * gradient-accumulation arithmetic or pasting a RAGEN command learns what actually runs. The
 * same goes for validation seeds the run also trains on, and algorithm settings nothing reads
 * (algorithm-notes.ts).
 */
export function settingNotes(cfg: RunConfig, options: { resuming?: boolean } = {}): string[] {
  const notes = [...batchNotes(cfg), ...seedNotes(cfg), ...loraNotes(cfg), ...algorithmNotes(cfg)];
  if (!options.resuming) notes.push(...warmStartNotes(cfg));
  return notes.map((note) => `note: ${note}`);
}

/** Episodes one update gets at most: the groups the rollout filter keeps, times the group size. */
export function episodesPerUpdate(cfg: RunConfig): number {
  const { env_groups: groups, group_size: size } = cfg.es_manager.train;
  // include_zero false may keep fewer, which a config cannot know.
  return keptGroupCount(groups, cfg.rollout_filter_ratio) * size;
}

function batchNotes(cfg: RunConfig): string[] {
  const notes: string[] = [];
  const rows = episodesPerUpdate(cfg);
  const roles: { key: string; settings: { ppo_mini_batch_size: number; ppo_micro_batch_size_per_gpu: number } }[] = [
    { key: 'actor_rollout_ref.actor', settings: cfg.actor_rollout_ref.actor },
  ];
  if (modelRoles(cfg).critic) roles.push({ key: 'critic', settings: cfg.critic });
  for (const { key, settings } of roles) {
    const { ppo_mini_batch_size: mini, ppo_micro_batch_size_per_gpu: micro } = settings;
    if (mini > rows) {
      const kept = cfg.rollout_filter_ratio < 1 ? ` of which rollout_filter_ratio ${cfg.rollout_filter_ratio} keeps ${rows / cfg.es_manager.train.group_size} groups` : '';
      notes.push(
        `${key}.ppo_mini_batch_size (${mini}) is more than the ${rows} episodes an update gets ` +
          `(es_manager.train.env_groups ${cfg.es_manager.train.env_groups} x group_size ${cfg.es_manager.train.group_size}${kept}), ` +
          `so each epoch is one mini-batch of ${rows}: one optimiser step`,
      );
    }
    const effectiveMini = Math.min(mini, rows);
    if (micro > effectiveMini) {
      notes.push(`${key}.ppo_micro_batch_size_per_gpu (${micro}) is more than the mini-batch of ${effectiveMini} episodes, so each mini-batch is one micro-batch of ${effectiveMini}`);
    } else if (effectiveMini % micro !== 0) {
      notes.push(
        `${key}.ppo_mini_batch_size (${effectiveMini}) is not a multiple of ppo_micro_batch_size_per_gpu (${micro}), so each mini-batch is split into micro-batches of at most ${micro} episodes ` +
          '(verl asks for a multiple; the loss is the same either way)',
      );
    }
  }
  return notes;
}

/** Validation boards the run also trains on: its validation success would measure what it has seen. */
function seedNotes(cfg: RunConfig): string[] {
  const { start_seed: valStart, env_groups: count } = cfg.es_manager.val;
  const { overlap, trained } = trainSeedOverlap(cfg, cfg.trainer.total_training_steps, valStart, count);
  if (overlap === 0) return [];
  return [
    `${overlap} of the ${count} validation start seeds (es_manager.val.start_seed ${valStart} on) are train seeds too (${trained}), ` +
      "so validation success partly measures boards the run trained on; move es_manager.val.start_seed past the train seeds (the default, 1000000, is)",
  ];
}

function loraNotes(cfg: RunConfig): string[] {
  const model = cfg.actor_rollout_ref.model;
  if (model.lora_rank > 0) return [];
  const set = (['lora_alpha', 'target_modules'] as const).filter((key) => differsFromDefault(cfg, `actor_rollout_ref.model.${key}`));
  if (set.length === 0) return [];
  const keys = set.map((key) => `actor_rollout_ref.model.${key}`).join(' and ');
  const what = model.path === null ? "TurnLab's own model trains every weight" : 'every weight of the pretrained model trains (full fine-tuning)';
  return [`${keys} ${set.length > 1 ? 'are' : 'is'} set, but actor_rollout_ref.model.lora_rank is 0, so no adapters are made and ${what}; set lora_rank (8, say) to train LoRA adapters`];
}

function warmStartNotes(cfg: RunConfig): string[] {
  const { mode, steps, lr } = cfg.warm_start;
  if (cfg.actor_rollout_ref.model.path === null || mode === 'none' || steps === 0) return [];
  return [
    `the warm start imitates ${mode === 'expert' ? "the solver's" : 'random valid'} moves for ${steps} steps at warm_start.lr ${lr} on the pretrained model before RL begins; ` +
      'RAGEN starts RL from the model as it is: add warm_start.steps=0 to do the same',
  ];
}
