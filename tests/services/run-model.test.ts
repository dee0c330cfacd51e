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
