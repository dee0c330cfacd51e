import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeRunModel } from '../../main/services/run-model';
import { openStore } from '../../main/store/db';
import type { StoredRunConfig } from '../../trainer-core';
import { makeTempDir } from '../helpers/fixtures';

const tmp = makeTempDir('run-model');
const store = openStore(tmp.dir, { create: true });
afterAll(() => {
  store.close();
  tmp.cleanup();
});

/** A run stored with `config`, read back from the database as the workbench reads it. */
function storedRun(config: StoredRunConfig) {
  const run = store.runs.create({ name: 'r', config, seed: 0, envTags: ['Bandit'], algorithm: 'grpo', status: 'completed' });
  return store.runs.get(run.id)!;
}

describe("a run's model, from its stored config", () => {
  const folder = join(tmp.dir, 'Qwen2.5-0.5B-Instruct');
  mkdirSync(folder);
  writeFileSync(join(folder, 'config.json'), JSON.stringify({ architectures: ['Qwen2ForCausalLM'] }));

  it("names LoRA's target modules as the trainer resolves them", () => {
    const lora = (target_modules: 'all-linear' | Array<'q_proj' | 'v_proj'>) =>
      describeRunModel(storedRun({ actor_rollout_ref: { model: { path: folder, lora_rank: 8, lora_alpha: 16, target_modules } } }));
    expect(lora('all-linear')).toMatchObject({
      kind: 'pretrained',
      name: 'Qwen2.5-0.5B-Instruct',
      architecture: 'Qwen2ForCausalLM',
      lora: { rank: 8, alpha: 16, targetModules: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] },
    });
    expect(lora(['q_proj', 'v_proj'])).toMatchObject({ lora: { targetModules: ['q_proj', 'v_proj'] } });
  });

  it("counts the base model's parameters from its config.json and the adapters' as the rest of the stored count", () => {
    const qwen = join(tmp.dir, 'tiny');
    mkdirSync(qwen);
    // A 16 x 8 embedding (tied), one layer of width 8 (2 heads of 4, q/k/v biases, MLP 16: 680), the final norm: 816.
    // Rank-2 adapters on q_proj: 8 x 2 + 2 x 8 = 32.
    const config = { architectures: ['Qwen2ForCausalLM'], vocab_size: 16, hidden_size: 8, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 2, intermediate_size: 16, tie_word_embeddings: true };
    writeFileSync(join(qwen, 'config.json'), JSON.stringify(config));
    const run = storedRun({ actor_rollout_ref: { model: { path: qwen, lora_rank: 2, lora_alpha: 4, target_modules: ['q_proj'] } } });
    store.runs.update(run.id, { parameterCount: 816 + 32 });
    expect(describeRunModel(store.runs.get(run.id)!)).toMatchObject({ parameterCount: 816, trainableCount: 32 });
    // A folder that no longer reads gives the stored count, adapters included, and no split.
    const moved = storedRun({ actor_rollout_ref: { model: { path: join(tmp.dir, 'gone'), lora_rank: 2 } } });
    store.runs.update(moved.id, { parameterCount: 1024 });
    expect(describeRunModel(store.runs.get(moved.id)!)).toMatchObject({ parameterCount: 1024, trainableCount: null, architecture: null });
  });

  it('reads a config missing keys (an earlier version) without failing, and full fine-tuning as no LoRA', () => {
    expect(describeRunModel(storedRun({ actor_rollout_ref: { model: { path: folder } } }))).toMatchObject({ kind: 'pretrained', lora: null });
    expect(describeRunModel(storedRun({ actor_rollout_ref: { model: { path: folder, lora_rank: 4, lora_alpha: 8 } } }))).toMatchObject({
      lora: { rank: 4, targetModules: expect.arrayContaining(['q_proj', 'down_proj']) },
    });
    expect(describeRunModel(storedRun({ model: { n_layer: 2, d_model: 64 } }))).toEqual({ kind: 'scratch', layers: 2, dModel: 64, parameterCount: null });
    // No `model` at all (the API fuzz found NaN here, which JSON sends as null against the contract).
    expect(describeRunModel(storedRun({}))).toEqual({ kind: 'scratch', layers: null, dModel: null, parameterCount: null });
  });
});
