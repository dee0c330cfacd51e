import { selectBackend } from '../../trainer-core/backend';
import { beforeAll, describe, expect, it } from 'vitest';
import { Adam } from '../../trainer-core/model/adam';
import { Transformer } from '../../trainer-core/model/transformer';
import { Rng } from '../../trainer-core/rng';
import type { TrainingBatch } from '../../trainer-core/train/batch';
import { scoreBatch, updateActor } from '../../trainer-core/train/ppo-update';
import { actorUpdateSettings, criticUpdateSettings, lossNormLength } from '../../trainer-core/train/update-settings';
import { tinyBanditConfig } from './helpers';

beforeAll(async () => {
  // Through TurnLab's own selection: it keeps tfjs's "install tfjs-node" banner out of the output.
  await selectBackend('cpu');
});

const modelConfig = { vocabSize: 16, contextLength: 32, dModel: 16, nLayers: 1, nHeads: 2, dMlp: 32, lmHead: true, valueHead: false };

/** Right-padded rows with their masks, in TrainingBatch form (documents: one per row). */
function batchOf(rows: Array<{ tokens: number[]; mask: number[] }>): TrainingBatch {
  const cols = Math.max(...rows.map((r) => r.tokens.length));
  const mask = new Float32Array(rows.length * cols);
  rows.forEach((r, b) => r.mask.forEach((m, t) => (mask[b * cols + t] = m)));
  return {
    rows: rows.length,
    cols,
    tokens: rows.map((r) => r.tokens),
    mask,
    rewards: new Float32Array(rows.length * cols),
    oldLogprobs: new Float32Array(rows.length * cols),
    turnEnds: rows.map(() => []),
    stateKeys: rows.map(() => []),
    documents: rows.map((r) => r.tokens.map(() => 0)),
    groupIds: rows.map((_, b) => b),
    episodes: [],
  };
}

/** actor/pg_loss of one update of a fresh model, with old logprobs equal to its own (ratio 1). */
async function pgLoss(batch: TrainingBatch, advantagePerToken: number, normLength: number): Promise<number> {
  const model = Transformer.create(modelConfig, 7);
  try {
    batch.oldLogprobs = (await scoreBatch(model, batch, { temperature: 1, logprobs: true, chunk: 8 })).logprobs as Float32Array;
    const advantages = batch.mask.map((m) => m * advantagePerToken);
    const cfg = tinyBanditConfig(['actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-sum-norm', `actor_rollout_ref.actor.loss_scale_factor=${normLength}`]);
    const settings = { ...actorUpdateSettings(cfg, 1, null), miniBatchSize: batch.rows, microBatchSize: batch.rows, epochs: 1, entropyCoeff: 0 };
    const optimizer = new Adam(model.namedVariables(), { learningRate: 1e-3 });
    const metrics = await updateActor(model, optimizer, batch, advantages, settings, new Rng(1));
    optimizer.dispose();
    return metrics['actor/pg_loss'];
  } finally {
    model.dispose();
  }
}

describe('seq-mean-token-sum-norm (Dr.GRPO)', () => {
  it('divides by the constant from the config, so an unrelated longer row leaves the loss alone', async () => {
    const rows = [
      { tokens: [1, 2, 3, 4, 5, 6], mask: [0, 0, 1, 1, 1, 0] },
      { tokens: [1, 2, 3, 7], mask: [0, 0, 1, 1] },
    ];
    // A much longer row with nothing generated (a long prompt): it adds width, no tokens to train.
    const longer = { tokens: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14], mask: Array<number>(14).fill(0) };
    const alone = await pgLoss(batchOf(rows), 1, 20);
    const withLonger = await pgLoss(batchOf([...rows, longer]), 1, 20);
    // Ratio 1 everywhere: each token loses -A; sums 3 and 2 over the constant 20, over 2 sequences.
    expect(alone).toBeCloseTo(-(3 / 20 + 2 / 20) / 2, 6);
    expect(withLonger).toBeCloseTo(alone, 6);
  });

  it('takes the constant from loss_scale_factor, by default the episode generation budget', () => {
    const cfg = tinyBanditConfig(['actor_rollout_ref.rollout.response_length=50', 'agent_proxy.max_turn=3']);
    expect(lossNormLength(cfg)).toBe(150);
    expect(actorUpdateSettings(cfg, 1, null).normLength).toBe(150);
    expect(criticUpdateSettings(cfg).normLength).toBe(150);
    expect(lossNormLength(tinyBanditConfig(['actor_rollout_ref.actor.loss_scale_factor=64']))).toBe(64);
  });
});

describe("the critic's loss aggregation", () => {
  it('follows critic.loss_agg_mode, which defaults to the actor setting', () => {
    const own = tinyBanditConfig(['actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-sum-norm', 'critic.loss_agg_mode=token-mean']);
    expect(actorUpdateSettings(own, 1, null).aggMode).toBe('seq-mean-token-sum-norm');
    expect(criticUpdateSettings(own).aggMode).toBe('token-mean');
    const inherited = tinyBanditConfig(['actor_rollout_ref.actor.loss_agg_mode=seq-mean-token-mean']);
    expect(criticUpdateSettings(inherited).aggMode).toBe('seq-mean-token-mean');
  });
});
