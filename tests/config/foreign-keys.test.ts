// verl's and RAGEN's keys that TurnLab has no key for: a config or an override that uses one is
// refused with what the key meant there and where it lives here, not with the closest spelling.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadRunConfig } from '../../trainer-core/config';
import { FOREIGN_KEYS, foreignKeyAdvice } from '../../trainer-core/config/foreign-keys';
import { RunConfigSchema } from '../../trainer-core/config/schema';
import { findUnknownKey } from '../../trainer-core/config/schema-walk';

const dir = mkdtempSync(join(tmpdir(), 'turnlab-foreign-'));

function messageOf(path: string, overrides: string[] = []): string {
  try {
    loadRunConfig(path, overrides);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('keys of verl and RAGEN', () => {
  it('names, in a file, each one with its line and what to use instead', () => {
    const path = join(dir, 'from-verl.yaml');
    writeFileSync(path, 'trainer:\n  total_training_steps: 2\n  n_gpus_per_node: 8\nactor_rollout_ref:\n  rollout:\n    n: 5\n    name: vllm\n');
    const message = messageOf(path);
    expect(message).toContain(`${path} line 3: unknown key \`trainer.n_gpus_per_node\`: TurnLab trains in one process on \`trainer.backend\``);
    expect(message).toContain(`${path} line 6: unknown key \`actor_rollout_ref.rollout.n\`: verl's responses per prompt; TurnLab groups episodes as RAGEN does: \`es_manager.train.group_size\``);
    expect(message).toContain(`${path} line 7: unknown key \`actor_rollout_ref.rollout.name\`: TurnLab samples with its own decoder`);
    expect(message).not.toContain('did you mean');
  });

  it('names the whole key of an override under a section TurnLab does not have', () => {
    const path = join(dir, 'empty-ish.yaml');
    writeFileSync(path, 'trainer:\n  total_training_steps: 1\n');
    expect(messageOf(path, ['data.train_batch_size=64'])).toContain("unknown key `data.train_batch_size`: verl's prompts per step; here `es_manager.train.env_groups`");
    expect(messageOf(path, ['data.train_files=x.parquet'])).toContain("unknown key `data.train_files`: verl reads prompts from `data`");
    expect(messageOf(path, ['actor_rollout_ref.actor.fsdp_config.param_offload=true'])).toContain('unknown key `actor_rollout_ref.actor.fsdp_config.param_offload`: TurnLab trains in one process');
    // verl's keys that the closest spelling would send the wrong way (clip_ratio_c, critic.optim, model).
    expect(messageOf(path, ['actor_rollout_ref.actor.clip_ratio=0.1'])).toContain("unknown key `actor_rollout_ref.actor.clip_ratio`: verl's symmetric clip");
    expect(messageOf(path, ['critic.model.path=Qwen/Qwen2.5-0.5B'])).toContain("unknown key `critic.model.path`: the critic starts from the policy's weights");
    expect(messageOf(path, ['reward_model.enable=false'])).toContain("unknown key `reward_model.enable`: TurnLab's rewards come from the environments");
    expect(messageOf(path, ['trainer.log_val_generations=10'])).toContain('unknown key `trainer.log_val_generations`: every episode and turn is stored');
    // verl's model keys a pasted script holds, which the closest spelling sent to lora_alpha, target_modules, stop.
    expect(messageOf(path, ['actor_rollout_ref.actor.ppo_micro_batch_size=4'])).toContain("unknown key `actor_rollout_ref.actor.ppo_micro_batch_size`: verl's older micro-batch over every GPU; TurnLab's is one device's: `actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu`");
    expect(messageOf(path, ['actor_rollout_ref.rollout.dtype=bfloat16'])).toContain('unknown key `actor_rollout_ref.rollout.dtype`: the rollout samples with the policy\'s own weights: `actor_rollout_ref.model.dtype`');
    expect(messageOf(path, ['actor_rollout_ref.model.trust_remote_code=true'])).toContain('unknown key `actor_rollout_ref.model.trust_remote_code`: TurnLab runs no code from a model folder');
    expect(messageOf(path, ['actor_rollout_ref.model.use_rslora=true'])).toContain('set `actor_rollout_ref.model.lora_alpha` to alpha x sqrt(lora_rank)');
    expect(messageOf(path, ['actor_rollout_ref.model.override_config.attention_dropout=0'])).toContain("unknown key `actor_rollout_ref.model.override_config.attention_dropout`: the model's shape is its folder's config.json");
    // RAGEN's top level: its seeds, and Hydra's defaults list and settings.
    expect(messageOf(path, ['seed.train=10000'])).toContain("unknown key `seed.train`: RAGEN's first train seed: here `es_manager.train.start_seed`");
    expect(messageOf(path, ['hydra.run.dir=outputs'])).toContain("unknown key `hydra.run.dir`: Hydra's own settings");
    const hydra = join(dir, 'from-ragen.yaml');
    writeFileSync(hydra, 'defaults:\n  - ppo_trainer\n  - envs\ntrainer:\n  total_training_steps: 1\n');
    expect(messageOf(hydra)).toContain(`${hydra} line 1: unknown key \`defaults\`: Hydra's defaults list, which TurnLab does not read`);
    // A misspelt TurnLab key still gets the closest spelling.
    expect(messageOf(path, ['trainer.totl_training_steps=1'])).toContain('unknown key `trainer.totl_training_steps`; did you mean `trainer.total_training_steps`?');
  });

  it('sends each one only to keys TurnLab has, and lists none TurnLab has itself', () => {
    for (const [name, advice] of FOREIGN_KEYS) {
      const key = name.replace(/\.$/, '');
      expect(findUnknownKey(RunConfigSchema, key.split('.')), `${name} is a TurnLab key`).not.toBeNull();
      for (const [, named] of advice.matchAll(/`([a-z_]+(?:\.[a-z_]+)+)`/g)) {
        expect(findUnknownKey(RunConfigSchema, named.split('.')), `${name} sends to ${named}`).toBeNull();
      }
    }
    expect(foreignKeyAdvice(['trainer', 'seed'])).toBeUndefined();
  });

  it('sends verl names of estimators to what they are here', () => {
    const path = join(dir, 'plain.yaml');
    writeFileSync(path, 'trainer:\n  total_training_steps: 1\n');
    expect(messageOf(path, ['algorithm.adv_estimator=ppo'])).toMatch(/got the string "ppo": PPO with a critic is `gae`/);
    expect(messageOf(path, ['algorithm.adv_estimator=bi_level_gae'])).toMatch(/RAGEN's bi-level GAE is `gae` with `algorithm.bi_level_gae: true`$/);
    expect(messageOf(path, ['actor_rollout_ref.actor.shuffle=false'])).toMatch(/unknown key `actor_rollout_ref.actor.shuffle`: TurnLab reshuffles/);
    expect(messageOf(path, ['algorithm.filter_groups.enable=true'])).toMatch(/unknown key `algorithm.filter_groups.enable`: DAPO's dynamic sampling/);
  });

  it("sends RAGEN's newer keys and verl's other estimators, KL types and older names to what they are here", () => {
    const path = join(dir, 'plain.yaml');
    writeFileSync(path, 'trainer:\n  total_training_steps: 1\n');
    const says = (override: string) => messageOf(path, [override]);
    expect(says('actor_rollout_ref.rollout.rollout_filter_ratio=0.5')).toMatch(/unknown key `actor_rollout_ref.rollout.rollout_filter_ratio`: RAGEN's newer place .* the top-level `rollout_filter_ratio`/);
    expect(says('actor_rollout_ref.rollout.rollout_filter_type=std_rev')).toContain('the top-level `rollout_filter_type`');
    expect(says('rollout_filter_type=largest')).toMatch(/got the string "largest": RAGEN's largest .* is `std` here/);
    expect(says('actor_rollout_ref.actor.optim.warmup_style=cosine')).toContain("verl's older name of `actor_rollout_ref.actor.optim.lr_scheduler_type`");
    expect(says('actor_rollout_ref.actor.optim.lr_warmup_steps=2')).toContain('`actor_rollout_ref.actor.optim.lr_warmup_steps_ratio` (0.1 of 200 iterations is 20)');
    expect(says('grpo_advantage_length_weight=true')).toContain('`actor_rollout_ref.actor.loss_agg_mode`');
    expect(says('ctx_manager.generation.gen_config.temperature=1')).toContain("RAGEN's context manager");
    expect(says('algorithm.adv_estimator=reinforce++')).toMatch(/got the string "reinforce\+\+": REINFORCE\+\+ is `reinforce_plus_plus`/);
    expect(says('algorithm.adv_estimator=remax')).toContain("verl's estimator of that name is not built into TurnLab");
    expect(says('actor_rollout_ref.actor.kl_loss_type=low_var_kl+')).toContain("verl's `+` variants");
    expect(says('agent_proxy.max_context_window=-1')).toMatch(/must be > 0, got -1: RAGEN's -1 \(every turn in the prompt\) is null here/);
    for (const override of ['algorithm.adv_estimator=reinforce++', 'actor_rollout_ref.rollout.rollout_filter_ratio=0.5', 'agent_proxy.max_context_window=-1']) expect(says(override)).not.toContain('did you mean');
  });

  it("sends transformers' 16-bit dtypes to auto, not to the closest spelling (float32)", () => {
    const path = join(dir, 'plain.yaml');
    writeFileSync(path, 'trainer:\n  total_training_steps: 1\n');
    const message = messageOf(path, ['actor_rollout_ref.model.dtype=bfloat16']);
    expect(message).toContain('must be one of auto | float32, got the string "bfloat16": auto (the default) keeps a BF16 or F16 checkpoint');
    expect(message).not.toContain('did you mean');
  });
});

describe("Hydra's prefixes in an override, wherever overrides are read (--set, the run form, the API)", () => {
  it('reads +key and ++key as key, and refuses ~key with what to do instead', () => {
    const path = join(dir, 'plain.yaml');
    writeFileSync(path, 'trainer:\n  total_training_steps: 1\n');
    expect(loadRunConfig(path, ['+trainer.total_training_steps=4']).trainer.total_training_steps).toBe(4);
    expect(loadRunConfig(path, ['++trainer.seed=9']).trainer.seed).toBe(9);
    expect(messageOf(path, ['~trainer.seed'])).toBe("--set ~trainer.seed: deleting a key (Hydra's ~key) is not supported; set it to another value (trainer.seed=...) or leave it out of the config file");
  });
});

