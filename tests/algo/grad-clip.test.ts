import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../trainer-core/backend';
import { beforeAll, describe, expect, it } from 'vitest';
import { clipByGlobalNorm, globalNorm } from '../../trainer-core/algo/grad-clip';
import { expectAllClose } from './helpers';

beforeAll(async () => {
  // Through TurnLab's own selection: it keeps tfjs's "install tfjs-node" banner out of the output.
  await selectBackend('cpu');
});

describe('clipByGlobalNorm', () => {
  it('scales every gradient by maxNorm / norm when the joint norm is too big', () => {
    const grads = [tf.tensor1d([3]), tf.tensor2d([[0, 4]])];
    const out = clipByGlobalNorm(grads, 1);
    expect(out.norm).toBeCloseTo(5, 6);
    expect(out.finite).toBe(true);
    expectAllClose(out.grads[0].dataSync(), [3 / (5 + 1e-6)], 1e-6);
    expectAllClose(out.grads[1].dataSync(), [0, 4 / (5 + 1e-6)], 1e-6);
    expect(globalNorm(out.grads)).toBeCloseTo(1, 5);
    tf.dispose([...grads, ...out.grads]);
  });

  it('leaves small gradients unchanged and works on named maps', () => {
    const grads = { w: tf.tensor1d([0.3]), b: tf.tensor1d([0.4]) };
    const out = clipByGlobalNorm(grads, 1);
    expect(out.norm).toBeCloseTo(0.5, 6);
    expectAllClose(out.grads.w.dataSync(), [0.3]);
    expectAllClose(out.grads.b.dataSync(), [0.4]);
    expect(out.grads.w).not.toBe(grads.w); // always fresh tensors: the caller owns both sets
    tf.dispose([grads.w, grads.b, out.grads.w, out.grads.b]);
  });

  it('flags non-finite gradients instead of scaling them', () => {
    const grads = [tf.tensor1d([Number.NaN, 1])];
    const out = clipByGlobalNorm(grads, 1);
    expect(out.finite).toBe(false);
    tf.dispose([...grads, ...out.grads]);
  });

  it('does not leak tensors and validates maxNorm', () => {
    const grads = [tf.tensor1d([10, 10])];
    const before = tf.memory().numTensors;
    const out = clipByGlobalNorm(grads, 2);
    expect(tf.memory().numTensors).toBe(before + 1);
    tf.dispose([...grads, ...out.grads]);
    expect(() => clipByGlobalNorm([], 0)).toThrow(/grad_clip must be > 0/);
    expect(clipByGlobalNorm([], 1).norm).toBe(0);
  });
});
