import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../trainer-core/backend';
import { beforeAll, describe, expect, it } from 'vitest';
import { klEstimate, KL_TYPES } from '../../trainer-core/algo/kl';
import { aggLoss, entropyFromLogits, klLoss, klPerToken, policyLoss, readScalars, valueLoss, type LossAggMode } from '../../trainer-core/algo/losses';
import { expectAllClose } from './helpers';

beforeAll(async () => {
  // Through TurnLab's own selection: it keeps tfjs's "install tfjs-node" banner out of the output.
  await selectBackend('cpu');
});

const t2 = (rows: number[][]) => tf.tensor2d(rows, undefined, 'float32');
const num = (s: tf.Tensor) => {
  const v = s.dataSync()[0];
  s.dispose();
  return v;
};

describe('aggLoss', () => {
  const loss = [[1, 2, 3], [4, 5, 6]];
  const mask = [[1, 1, 0], [1, 0, 0]];
  const agg = (mode: LossAggMode, l = loss, m = mask, opts = {}) => num(aggLoss(t2(l), t2(m), mode, opts));

  it('token-mean: masked sum over the number of generated tokens', () => {
    expect(agg('token-mean')).toBeCloseTo(7 / 3, 6);
  });
  it('seq-mean-token-sum: mean over sequences of token sums', () => {
    expect(agg('seq-mean-token-sum')).toBeCloseTo((3 + 4) / 2, 6);
  });
  it('seq-mean-token-mean: mean over sequences of token means', () => {
    expect(agg('seq-mean-token-mean')).toBeCloseTo((1.5 + 4) / 2, 6);
  });
  it('seq-mean-token-sum-norm: token sums over a constant length (T by default), averaged', () => {
    expect(agg('seq-mean-token-sum-norm')).toBeCloseTo((3 / 3 + 4 / 3) / 2, 6);
    expect(agg('seq-mean-token-sum-norm', loss, mask, { normLength: 4 })).toBeCloseTo((3 / 4 + 4 / 4) / 2, 6);
  });
  it('leaves sequences without generated tokens out of the sequence mean', () => {
    const l = [...loss, [7, 8, 9]];
    const m = [...mask, [0, 0, 0]];
    expect(agg('token-mean', l, m)).toBeCloseTo(7 / 3, 6);
    expect(agg('seq-mean-token-sum', l, m)).toBeCloseTo(3.5, 6);
    expect(agg('seq-mean-token-mean', l, m)).toBeCloseTo(2.75, 6);
  });
  it('returns 0, not NaN, when nothing is generated', () => {
    for (const mode of ['token-mean', 'seq-mean-token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'] as const) {
      expect(agg(mode, loss, [[0, 0, 0], [0, 0, 0]])).toBe(0);
    }
  });
  it('uses global counts so micro-batch losses add up to the mini-batch loss', () => {
    expect(agg('token-mean', loss, mask, { globalTokens: 7 })).toBeCloseTo(1, 6);
    expect(agg('seq-mean-token-sum', loss, mask, { globalSeqs: 7 })).toBeCloseTo(1, 6);
  });
  it('rejects unknown modes and mismatched shapes', () => {
    expect(() => agg('sum' as LossAggMode)).toThrow(/unknown loss_agg_mode 'sum'/);
    expect(() => aggLoss(t2(loss), t2([[1, 1, 1]]))).toThrow(/same shape/);
  });
});

describe('policyLoss', () => {
  // One sequence, six tokens; the last one is masked out. old logp = -2, logp = -2 + ln(ratio).
  const ratios = [1.1, 1.5, 0.5, 5, 0.5, 10];
  const adv = [[1, 1, -1, -1, 2, 100]];
  const mask = [[1, 1, 1, 1, 1, 0]];
  const run = (clipHigh: number) =>
    readScalars(
      policyLoss({
        logp: t2([ratios.map((r) => -2 + Math.log(r))]),
        oldLogp: t2([ratios.map(() => -2)]),
        advantages: t2(adv),
        mask: t2(mask),
        clipLow: 0.2,
        clipHigh,
        clipRatioC: 3,
      }),
    );

  it('clips the ratio with separate low/high bounds and applies the dual clip for A < 0', () => {
    const m = run(0.28);
    // tokens: A=1 r=1.1 -> -1.1 | A=1 r=1.5 -> clipped -1.28 | A=-1 r=.5 -> clipped .8 |
    //         A=-1 r=5 -> 5, dual-clipped to 3 | A=2 r=.5 -> -1 (clipping would be -1.6, max keeps -1)
    expect(m.loss).toBeCloseTo((-1.1 - 1.28 + 0.8 + 3 - 1) / 5, 5);
    expect(m.clipfrac).toBeCloseTo(2 / 5, 6);
    expect(m.clipfracLower).toBeCloseTo(1 / 5, 6);
    expect(m.ppoKl).toBeCloseTo(-Math.log(1.1 * 1.5 * 0.5 * 5 * 0.5) / 5, 5);
  });

  it('the high clip bound is what caps positive-advantage gains', () => {
    expect(run(0.2).loss).toBeCloseTo((-1.1 - 1.2 + 0.8 + 3 - 1) / 5, 5);
  });

  it('clamps the log-ratio to [-20, 20] before the exp', () => {
    const m = readScalars(policyLoss({ logp: t2([[50]]), oldLogp: t2([[0]]), advantages: t2([[-1]]), mask: t2([[1]]), clipRatioC: 1e12 }));
    expect(m.loss).toBeCloseTo(Math.exp(20), -3);
    expect(m.ppoKl).toBeCloseTo(-20, 5);
  });

  it('validates the clip settings', () => {
    const base = { logp: t2([[0]]), oldLogp: t2([[0]]), advantages: t2([[1]]), mask: t2([[1]]) };
    expect(() => policyLoss({ ...base, clipRatioC: 1 })).toThrow(/clip_ratio_c .* greater than 1/);
    expect(() => policyLoss({ ...base, clipLow: 1 })).toThrow(/clip_ratio_low/);
    expect(() => policyLoss({ ...base, mask: t2([[1, 1]]) })).toThrow(/mask has shape \[1,2\]/);
  });

  it('does not leak tensors', () => {
    const inputs = { logp: t2([[-1, -2]]), oldLogp: t2([[-1.1, -2]]), advantages: t2([[1, -1]]), mask: t2([[1, 1]]) };
    const before = tf.memory().numTensors;
    readScalars(policyLoss(inputs));
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('valueLoss', () => {
  it('takes the larger of the plain and clipped squared errors, halved', () => {
    const m = readScalars(
      valueLoss({
        values: t2([[1, 2, 0, 3, 50]]),
        oldValues: t2([[0.8, 0.8, 1, 1, 0]]),
        returns: t2([[2, 2, -1, 0, 0]]),
        mask: t2([[1, 1, 1, 1, 0]]),
      }),
    );
    // clip to old +- .5: 1 (in range) -> 1 vs 1 | 1.3 -> 0 vs .49 | .5 -> 1 vs 2.25 | 1.5 -> 9 vs 2.25
    expect(m.loss).toBeCloseTo((0.5 * (1 + 0.49 + 2.25 + 9)) / 4, 5);
    expect(m.clipfrac).toBeCloseTo(2 / 4, 6);
  });
});

describe('entropyFromLogits', () => {
  it('matches -sum p log p computed directly, and stays finite for large logits', () => {
    const logits = [[1, 2, 3], [0, 0, 0], [1000, 0, -1000]];
    const h = entropyFromLogits(tf.tensor2d(logits));
    const direct = logits.map((z) => {
      const m = Math.max(...z);
      const e = z.map((v) => Math.exp(v - m));
      const s = e.reduce((a, b) => a + b, 0);
      return -e.reduce((acc, v) => (v > 0 ? acc + (v / s) * Math.log(v / s) : acc), 0);
    });
    expect(h.shape).toEqual([3]);
    expectAllClose(h.dataSync(), direct, 1e-5);
    expect(direct[1]).toBeCloseTo(Math.log(3), 10);
    h.dispose();
  });

  it('works on [B, T, V] logits', () => {
    const h = entropyFromLogits(tf.zeros([2, 3, 4]));
    expect(h.shape).toEqual([2, 3]);
    expectAllClose(h.dataSync(), new Array(6).fill(Math.log(4)), 1e-5);
    h.dispose();
  });
});

describe('KL as a tensor and as a loss', () => {
  it('klPerToken agrees with klEstimate for every type, clamps included', () => {
    const logp = [-1, -1.5, -2, -40, -10];
    const ref = [-1.5, -1, -2, -10, -40];
    for (const type of KL_TYPES) {
      const k = klPerToken(tf.tensor1d(logp), tf.tensor1d(ref), type);
      expectAllClose(k.dataSync(), logp.map((l, i) => klEstimate(l, ref[i], type)), 1e-4);
      k.dispose();
    }
  });

  it('klLoss aggregates the per-token estimate (low_var_kl by default)', () => {
    const loss = num(klLoss({ logp: t2([[-1, -1.5, 3]]), refLogp: t2([[-1.5, -1, 0]]), mask: t2([[1, 1, 0]]) }));
    expect(loss).toBeCloseTo((klEstimate(-1, -1.5, 'k3') + klEstimate(-1.5, -1, 'k3')) / 2, 5);
  });
});

describe('use inside tf.variableGrads', () => {
  it('keeps metrics with tf.keep while the loss drives the gradient', () => {
    const logp = tf.variable(t2([[-1, -2, -0.5]]));
    let metrics: ReturnType<typeof policyLoss> | undefined;
    const { value, grads } = tf.variableGrads(() => {
      const out = policyLoss({ logp, oldLogp: t2([[-1, -2, -0.5]]), advantages: t2([[1, -2, 0.5]]), mask: t2([[1, 1, 0]]) });
      metrics = { loss: out.loss, clipfrac: tf.keep(out.clipfrac), clipfracLower: tf.keep(out.clipfracLower), ppoKl: tf.keep(out.ppoKl) };
      return out.loss;
    }, [logp]);
    // ratio 1 everywhere: d loss / d logp_t = -A_t * ratio / N on generated tokens
    expectAllClose(grads[logp.name].dataSync(), [-1 / 2, 2 / 2, 0], 1e-6);
    expect(value.dataSync()[0]).toBeCloseTo((-1 + 2) / 2, 6);
    expect(metrics?.clipfrac.dataSync()[0]).toBe(0);
    tf.dispose([value, grads, metrics?.clipfrac, metrics?.clipfracLower, metrics?.ppoKl, logp]);
  });
});
