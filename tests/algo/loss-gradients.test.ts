import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../trainer-core/backend';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOSS_AGG_MODES, policyLoss, valueLoss } from '../../trainer-core/algo/losses';

beforeAll(async () => {
  // Through TurnLab's own selection: it keeps tfjs's "install tfjs-node" banner out of the output.
  await selectBackend('cpu');
});

/**
 * Central differences of a scalar function of a [B, T] input, entry by entry. The inputs below
 * keep every ratio / value at least 0.05 away from a clip boundary, so no kink lies within h.
 */
function numericGradient(f: (x: tf.Tensor2D) => tf.Scalar, x: number[][], h = 1e-3): number[] {
  const flat = x.flat();
  const [rows, cols] = [x.length, x[0].length];
  const evaluate = (values: number[]) => {
    const input = tf.tensor2d(values, [rows, cols]);
    const out = f(input);
    const v = out.dataSync()[0];
    tf.dispose([input, out]);
    return v;
  };
  return flat.map((_, i) => {
    const plus = flat.slice();
    const minus = flat.slice();
    plus[i] += h;
    minus[i] -= h;
    return (evaluate(plus) - evaluate(minus)) / (2 * h);
  });
}

function analyticGradient(f: (x: tf.Tensor2D) => tf.Scalar, x: number[][]): number[] {
  const input = tf.tensor2d(x);
  const g = tf.grad((t: tf.Tensor) => f(t as tf.Tensor2D))(input);
  const out = Array.from(g.dataSync());
  tf.dispose([input, g]);
  return out;
}

function expectGradientsAgree(analytic: number[], numeric: number[], tol = 1e-3): void {
  analytic.forEach((a, i) => {
    if (!(Math.abs(a - numeric[i]) <= tol)) throw new Error(`entry ${i}: tf.grad ${a}, finite difference ${numeric[i]}`);
  });
}

describe('finite-difference gradient checks', () => {
  // ratios exp(logp - old): 1.1, 1.6, .6, 4 | .95, 1.05, 1.5, .7 (clip .2 / .28, dual clip 3)
  const oldLogp = [[-1, -2, -0.5, -3], [-1.5, -0.7, -2.2, -1]];
  const ratios = [[1.1, 1.6, 0.6, 4], [0.95, 1.05, 1.5, 0.7]];
  const logp = oldLogp.map((row, b) => row.map((o, t) => o + Math.log(ratios[b][t])));
  const advantages = [[0.7, 1.2, -0.4, -1.5], [-0.8, 0.3, -1.1, 0.9]];
  const mask = [[1, 1, 1, 1], [1, 1, 1, 0]];

  for (const aggMode of LOSS_AGG_MODES) {
    it(`policyLoss w.r.t. logp (${aggMode})`, () => {
      const f = (lp: tf.Tensor2D) =>
        tf.tidy(() => {
          const out = policyLoss({ logp: lp, oldLogp: tf.tensor2d(oldLogp), advantages: tf.tensor2d(advantages), mask: tf.tensor2d(mask), clipLow: 0.2, clipHigh: 0.28, aggMode });
          return out.loss;
        });
      const analytic = analyticGradient(f, logp);
      expectGradientsAgree(analytic, numericGradient(f, logp));
      // the clipped tokens (ratio 1.6 with A > 0, .6 with A < 0), the dual-clipped one (ratio 4,
      // A < 0) and the masked one get no gradient; the others do
      expect([analytic[1], analytic[2], analytic[3], analytic[7]]).toEqual([0, 0, 0, 0]);
      expect(analytic.filter((g) => g !== 0)).toHaveLength(4);
    });
  }

  const oldValues = [[0.5, -0.2, 1.0], [0.3, 0.0, 2.0]];
  const returns = [[1.5, 0.3, -1.0], [0.2, 1.0, 0.0]];
  const vmask = [[1, 1, 1], [1, 0, 1]];
  // values: within the clip range (plain error wins), beyond it (clipped error wins), etc.
  const values = [[0.7, 0.6, 0.2], [0.1, 0.4, 2.9]];

  for (const aggMode of LOSS_AGG_MODES) {
    it(`valueLoss w.r.t. values (${aggMode})`, () => {
      const f = (v: tf.Tensor2D) =>
        tf.tidy(() => valueLoss({ values: v, oldValues: tf.tensor2d(oldValues), returns: tf.tensor2d(returns), mask: tf.tensor2d(vmask), cliprange: 0.5, aggMode }).loss);
      const analytic = analyticGradient(f, values);
      expectGradientsAgree(analytic, numericGradient(f, values));
      expect(Math.abs(analytic[4])).toBe(0); // masked token
    });
  }

  it('valueLoss token-mean gradient is (v - R) / N where the plain error wins', () => {
    const f = (v: tf.Tensor2D) => tf.tidy(() => valueLoss({ values: v, oldValues: tf.tensor2d(oldValues), returns: tf.tensor2d(returns), mask: tf.tensor2d(vmask) }).loss);
    const g = analyticGradient(f, values);
    // token (0,0): v .7 in [0, 1], plain error (.7 - 1.5)^2 -> gradient (.7 - 1.5) / 5
    expect(g[0]).toBeCloseTo((0.7 - 1.5) / 5, 5);
    // token (0,1): v .6 beyond -.2 + .5 = .3, clipped error (.3 - .3)^2 = 0 < plain (.3)^2 -> plain wins: .3 / 5
    expect(g[1]).toBeCloseTo(0.3 / 5, 5);
    // token (1,2): v 2.9 clipped to 2.5; clipped error 6.25 < plain 8.41 -> plain: 2.9 / 5
    expect(g[5]).toBeCloseTo(2.9 / 5, 5);
    // token (0,2): v .2 clipped to .5; clipped error 2.25 > plain 1.44 -> constant in v: 0
    expect(Math.abs(g[2])).toBe(0);
  });
});
