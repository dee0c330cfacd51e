// The trainer's PPO update run on a pretrained decoder with LoRA: FrozenLake prompts rendered
// as chat messages by the model's own template, replies sampled with the KV cache, then the
// actor update (GRPO advantages, KL loss to the adapters-off reference) and a critic update
// from the same base with a value head. Not the whole training loop (see the README).
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeGrpo } from '../../trainer-core/algo/grpo';
import { selectBackend } from '../../trainer-core/backend';
import { createEnv, frozenLakeSpec } from '../../trainer-core/envs';
import { Adam } from '../../trainer-core/model/adam';
import { asPolicy } from '../../trainer-core/model/hf/generate';
import { loadHfDecoder, openHfModelFolder } from '../../trainer-core/model/hf/load';
import { resolveTargetModules } from '../../trainer-core/model/hf/lora';
import { sampleTokens } from '../../trainer-core/model/sampler';
import { scoreTokens } from '../../trainer-core/model/scoring';
import { Rng } from '../../trainer-core/rng';
import type { TrainingBatch } from '../../trainer-core/train/batch';
import { scoreBatch, updateActor, updateCritic } from '../../trainer-core/train/ppo-update';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { makeTempDir, type TempDir } from '../helpers/fixtures';

let temp: TempDir;
beforeAll(async () => {
  await selectBackend('wasm');
  temp = makeTempDir('turnlab-hf-ppo-');
});
afterAll(() => temp.cleanup());

describe('PPO update on a LoRA Qwen2 policy', () => {
  it('trains the adapters only, leaves the adapters-off reference unchanged, and trains a value-head critic', async () => {
    const folder = await openHfModelFolder(await writeRandomHfModel(join(temp.dir, 'qwen2'), PRESETS['small-qwen2'], { seed: 6 }));
    const lora = { rank: 4, alpha: 8, targetModules: resolveTargetModules(['q_proj', 'v_proj']) };
    const policy = await loadHfDecoder(folder, { lora, seed: 1 });
    const reference = policy.withoutAdapters();
    const critic = await loadHfDecoder(folder, { lora, seed: 2, lmHead: false, valueHead: true });

    // Two groups of two episodes, one turn each: system + user messages through the template.
    const prompts: number[][] = [];
    for (const seed of [11, 11, 12, 12]) {
      const env = createEnv(frozenLakeSpec, { is_slippery: false, size: 4 });
      const observation = env.reset(seed);
      // Short messages: scoring forms [rows, tokens, vocabulary] logits, which dominates the cost.
      const text = folder.template!.render(
        [
          { role: 'system', content: 'Reach G, avoid O.' },
          { role: 'user', content: observation },
        ],
        { addGenerationPrompt: true },
      );
      prompts.push(folder.tokenizer.encode(text));
    }
    const sampled = await sampleTokens(asPolicy(policy), prompts, { maxNewTokens: 5, temperature: 1, stopIds: folder.tokenizer.stopIds, padId: folder.tokenizer.padId, rng: new Rng(3) });
    const tokens = prompts.map((p, b) => [...p, ...sampled.tokens[b]]);
    const cols = Math.max(...tokens.map((t) => t.length));
    const mask = new Float32Array(tokens.length * cols);
    const rewards = new Float32Array(tokens.length * cols);
    const oldLogprobs = new Float32Array(tokens.length * cols);
    tokens.forEach((row, b) => {
      sampled.tokens[b].forEach((_, i) => {
        const t = prompts[b].length + i;
        mask[b * cols + t] = 1;
        oldLogprobs[b * cols + t] = sampled.logprobs[b][i];
      });
      // The test's own outcome rewards: a random policy almost never answers in format.
      rewards[b * cols + row.length - 1] = b % 2;
    });
    const batch: TrainingBatch = {
      rows: tokens.length, cols, tokens, mask, rewards, oldLogprobs,
      turnEnds: tokens.map((row) => [row.length]),
      stateKeys: tokens.map(() => ['s']),
      documents: tokens.map((row) => row.map(() => 0)),
      groupIds: [0, 0, 1, 1],
      episodes: [],
    };
    const before = await scoreBatch(asPolicy(reference), batch, { chunk: 2, logprobs: true });
    const { advantages } = computeGrpo({ rewards, mask, rows: batch.rows, cols, groupIds: batch.groupIds });
    const baseWeight = (await policy.baseTensors())['model.layers.0.self_attn.q_proj.weight'].data;
    const optimizer = new Adam(policy.namedVariables(), { learningRate: 1e-2 });
    const settings = {
      miniBatchSize: 4, microBatchSize: 2, epochs: 1, clipLow: 0.2, clipHigh: 0.2, clipRatioC: 3, aggMode: 'token-mean' as const,
      entropyCoeff: 0, temperature: 1, gradClip: 1, normLength: 64, klLoss: { coef: 0.01, type: 'low_var_kl' as const, refLogprobs: before.logprobs! },
    };
    const metrics = await updateActor(asPolicy(policy), optimizer, batch, Float32Array.from(advantages), settings, new Rng(4));
    for (const value of Object.values(metrics)) expect(Number.isFinite(value)).toBe(true);
    // Sampling and scoring agree (the first micro-batch starts at ratio 1), and the KL is 0.
    expect(Math.abs(metrics['actor/ppo_kl'])).toBeLessThan(1e-3);
    expect(metrics['actor/kl_loss']).toBeLessThan(1e-3);

    const after = await scoreBatch(asPolicy(policy), batch, { chunk: 2, logprobs: true });
    const referenceAfter = await scoreBatch(asPolicy(reference), batch, { chunk: 2, logprobs: true });
    expect(Array.from(referenceAfter.logprobs!)).toEqual(Array.from(before.logprobs!));
    let changed = 0;
    for (let i = 0; i < mask.length; i++) if (mask[i] && Math.abs(after.logprobs![i] - before.logprobs![i]) > 1e-4) changed++;
    expect(changed).toBeGreaterThan(0);
    expect(Array.from((await policy.baseTensors())['model.layers.0.self_attn.q_proj.weight'].data)).toEqual(Array.from(baseWeight));
    const loraB = await policy.parameter('model.layers.0.self_attn.q_proj.lora_B').data();
    expect(Math.max(...Array.from(loraB).map(Math.abs))).toBeGreaterThan(0);

    // Critic: the same base with a value head, trained on the GRPO returns as targets.
    const oldValues = (await scoreBatch(asPolicy(critic), batch, { chunk: 2, logprobs: false, values: true })).values!;
    const criticOptimizer = new Adam(critic.namedVariables(), { learningRate: 1e-2 });
    const criticMetrics = await updateCritic(asPolicy(critic), criticOptimizer, batch, Float32Array.from(advantages), oldValues, {
      miniBatchSize: 4, microBatchSize: 2, epochs: 2, cliprange: 0.5, aggMode: 'token-mean', gradClip: 1, normLength: 64,
    }, new Rng(5));
    expect(Number.isFinite(criticMetrics['critic/vf_loss'])).toBe(true);
    const newValues = tf.tidy(() => scoreTokens(asPolicy(critic), [tokens[0]], { logprobs: false, values: true }).values!.arraySync()[0]);
    expect(newValues.some((v, t) => Math.abs(v - oldValues[t]) > 1e-4)).toBe(true);

    optimizer.dispose();
    criticOptimizer.dispose();
    policy.dispose();
    critic.dispose();
  }, 240_000);
});
