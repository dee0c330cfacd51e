/**
 * A few forward + backward + Adam steps of a tiny seeded model on seeded data. Every backend runs
 * the same arithmetic, so the losses must agree across backends up to float32 rounding: the
 * backend tests compare them, and a trainer can run it to check a backend before a long run.
 */
import * as tf from '@tensorflow/tfjs';
import { Rng, deriveSeed } from '../rng';
import { Adam } from './adam';
import { scoreTokens } from './scoring';
import { Transformer, type TransformerConfig } from './transformer';

export const SELFTEST_CONFIG: TransformerConfig = { vocabSize: 24, contextLength: 16, dModel: 16, nLayers: 2, nHeads: 2, valueHead: true };

export interface SelfTestResult {
  /** Loss before each step (the last entry is after the final step). */
  losses: number[];
  backend: string;
}

export function selfTestBatch(seed: number, rows = 4): { tokens: number[][]; returns: number[][] } {
  const rng = new Rng(deriveSeed(seed, 'selftest-data'));
  const tokens: number[][] = [];
  const returns: number[][] = [];
  for (let r = 0; r < rows; r++) {
    const length = rng.intBetween(6, 12);
    tokens.push(Array.from({ length }, () => rng.int(SELFTEST_CONFIG.vocabSize)));
    returns.push(Array.from({ length }, () => rng.next() * 2 - 1));
  }
  return { tokens, returns };
}

/** Mean next-token NLL plus half the mean squared value error, over real tokens. */
export function selfTestLoss(model: Transformer, tokens: number[][], returns: number[][]): tf.Scalar {
  const width = Math.max(...tokens.map((row) => row.length));
  const mask = new Float32Array(tokens.length * width);
  const target = new Float32Array(tokens.length * width);
  tokens.forEach((row, b) => {
    for (let t = 1; t < row.length; t++) {
      mask[b * width + t] = 1;
      target[b * width + t] = returns[b][t];
    }
  });
  const scores = scoreTokens(model, tokens, { logprobs: true, values: true });
  const m = tf.tensor2d(mask, [tokens.length, width]);
  const count = mask.reduce((a, b) => a + b, 0);
  const nll = scores.logprobs!.mul(m).sum().neg().div(count);
  const valueError = scores.values!.sub(tf.tensor2d(target, [tokens.length, width])).square().mul(m).sum().div(2 * count);
  return nll.add(valueError) as tf.Scalar;
}

export async function runSelfTest(seed = 7, steps = 2, learningRate = 1e-2): Promise<SelfTestResult> {
  const model = Transformer.create(SELFTEST_CONFIG, seed);
  const optimizer = new Adam(model.namedVariables(), { learningRate });
  const { tokens, returns } = selfTestBatch(seed);
  const losses: number[] = [];
  try {
    for (let step = 0; step < steps; step++) {
      const { value, grads } = tf.variableGrads(() => selfTestLoss(model, tokens, returns), model.variables());
      losses.push((await value.data())[0]);
      optimizer.apply(model.nameGradients(grads));
      tf.dispose([value, ...Object.values(grads)]);
    }
    const final = tf.tidy(() => selfTestLoss(model, tokens, returns));
    losses.push((await final.data())[0]);
    final.dispose();
  } finally {
    optimizer.dispose();
    model.dispose();
  }
  return { losses, backend: tf.getBackend() };
}
