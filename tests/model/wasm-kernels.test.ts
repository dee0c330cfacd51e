import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { assembleKernel, kernelSources, modulePath, moduleText } from '../../scripts/build-wasm-kernels';
import { selectBackend } from '../../trainer-core/backend';
import { tfjsBatchMatMul } from '../../trainer-core/model/wasm-kernels';
import { Rng } from '../../trainer-core/rng';

beforeAll(async () => {
  await selectBackend('wasm');
});

function random(shape: number[], seed: number): tf.Tensor {
  const rng = new Rng(seed);
  return tf.tensor(Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()), shape);
}

/** Bit patterns, so -0 vs 0 and every last bit count. */
const bits = (t: tf.Tensor) => Array.from(new Uint32Array((t.dataSync() as Float32Array).slice().buffer));

describe('wasm kernels', () => {
  it('ship the binary their .wat source assembles to', async () => {
    for (const source of kernelSources()) {
      expect(readFileSync(modulePath(source), 'utf8'), `${modulePath(source)} is stale: run npx tsx scripts/build-wasm-kernels.ts`).toBe(
        moduleText(source.split('/').pop()!, await assembleKernel(source)),
      );
    }
  });

  // Shared dimensions below, at and past tfjs's block of 48; widths that exercise the 16-, 4- and
  // 1-column paths; attention's shapes; both transposes.
  const cases: Array<[number[], number[], boolean, boolean]> = [
    [[6, 5, 32], [6, 32, 37], false, false],
    [[3, 9, 48], [3, 48, 21], false, false],
    [[3, 9, 130], [3, 130, 19], false, false],
    [[2, 4, 7, 100], [2, 4, 100, 16], false, false],
    [[5, 40, 3], [5, 40, 18], true, false],
    [[4, 11, 97], [4, 23, 97], false, true],
    [[4, 97, 11], [4, 23, 97], true, true],
    [[1, 12, 60], [1, 33, 60], false, true],
    [[13, 60], [33, 60], false, true],
    [[60, 13], [60, 33], true, false],
    [[8, 1, 24], [8, 24, 70], false, false],
  ];

  it.each(cases)('equals tfjs-wasm\'s own kernel bit for bit: %j x %j (transposes %s, %s)', (aShape, bShape, transposeA, transposeB) => {
    const a = random(aShape, 1);
    const b = random(bShape, 2);
    const ours = tf.matMul(a, b, transposeA, transposeB);
    const theirs = tfjsBatchMatMul(a, b, transposeA, transposeB);
    expect(ours.shape).toEqual(theirs.shape);
    expect(bits(ours)).toEqual(bits(theirs));
    // And it is a matrix product: against float64 sums, within float32 rounding.
    // The first matrix of the batch.
    const first = (t: tf.Tensor): number[][] => {
      let x = t.arraySync() as unknown;
      for (let r = t.rank; r > 2; r--) x = (x as unknown[])[0];
      return x as number[][];
    };
    const [A, B, O] = [first(a), first(b), first(ours)];
    const at = (m: number[][], i: number, j: number, t: boolean) => (t ? m[j][i] : m[i][j]);
    const k = transposeA ? A.length : A[0].length;
    for (let i = 0; i < O.length; i++) {
      for (let j = 0; j < O[0].length; j++) {
        let sum = 0;
        for (let q = 0; q < k; q++) sum += at(A, i, q, transposeA) * at(B, q, j, transposeB);
        expect(O[i][j]).toBeCloseTo(sum, 3);
      }
    }
    tf.dispose([a, b, ours, theirs]);
  });

  it('leaves no tensors behind and has a gradient', () => {
    const before = tf.memory().numTensors;
    const a = random([3, 4, 5], 3);
    const b = random([3, 5, 6], 4);
    const grads = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.matMul(x, y).sum())([a, b]);
    expect(grads[0].shape).toEqual([3, 4, 5]);
    const ones = tf.ones([3, 4, 6]);
    const expected = tfjsBatchMatMul(ones, b, false, true);
    expect(bits(grads[0])).toEqual(bits(expected));
    tf.dispose([a, b, ones, expected, ...grads]);
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('wasm Slice kernel', () => {
  /** The same box read element by element from the tensor's own values. */
  function expectedSlice(t: tf.Tensor, begin: number[], size: number[]): number[] {
    const values = Array.from(t.dataSync());
    const strides = t.shape.map((_, i) => t.shape.slice(i + 1).reduce((a, b) => a * b, 1));
    const out: number[] = [];
    const walk = (dim: number, offset: number) => {
      if (dim === t.rank) return void out.push(values[offset]);
      for (let i = 0; i < size[dim]; i++) walk(dim + 1, offset + (begin[dim] + i) * strides[dim]);
    };
    walk(0, 0);
    return out;
  }

  const cases: Array<[number[], number[], number[]]> = [
    [[7, 9], [2, 3], [4, 5]],
    [[5, 12], [0, 4], [5, 4]],
    [[3, 4, 5], [1, 1, 2], [2, 3, 3]],
    [[2, 3, 4, 6], [0, 1, 0, 3], [2, 2, 4, 3]],
    [[2, 3, 4, 6], [1, 0, 2, 0], [1, 3, 2, 6]],
    [[4, 6], [1, 0], [2, 6]],
    [[3, 2, 5, 4], [1, 0, 0, 0], [2, 2, 5, 4]],
    [[10], [3], [5]],
  ];

  it.each(cases)('copies the box of %j at %j of size %j, for float32, int32 and bool', (shape, begin, size) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const rng = new Rng(7);
    for (const t of [
      tf.tensor(Float32Array.from({ length: n }, () => rng.normal()), shape, 'float32'),
      tf.tensor(Int32Array.from({ length: n }, () => rng.int(1000) - 500), shape, 'int32'),
      tf.tensor(Array.from({ length: n }, () => rng.int(2) === 1), shape, 'bool'),
    ]) {
      const sliced = tf.slice(t, begin, size);
      expect(sliced.shape).toEqual(size);
      expect(sliced.dtype).toBe(t.dtype);
      expect(Array.from(sliced.dataSync())).toEqual(expectedSlice(t, begin, size));
      tf.dispose([t, sliced]);
    }
  });

  it('takes -1 sizes and an empty box, and leaves no tensors behind', () => {
    const before = tf.memory().numTensors;
    const t = random([4, 6], 5);
    const rest = tf.slice(t, [1, 2], [-1, -1]);
    expect(Array.from(rest.dataSync())).toEqual(expectedSlice(t, [1, 2], [3, 4]));
    const empty = tf.slice(t, [1, 2], [0, 3]);
    expect(empty.shape).toEqual([0, 3]);
    tf.dispose([t, rest, empty]);
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('wasm Tile kernel', () => {
  const cases: Array<[number[], number[]]> = [
    [[1, 3, 4], [5, 1, 1]],
    [[1, 1, 2, 3], [2, 3, 1, 1]],
    [[1, 6], [4, 1]],
    [[2, 3], [3, 1]],
    [[1, 3], [2, 2]],
    [[3], [4]],
  ];

  it.each(cases)('repeats %j by %j as tf.tile defines it, for float32, int32 and bool', (shape, reps) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const rng = new Rng(9);
    for (const t of [
      tf.tensor(Float32Array.from({ length: n }, () => rng.normal()), shape, 'float32'),
      tf.tensor(Int32Array.from({ length: n }, () => rng.int(100)), shape, 'int32'),
      tf.tensor(Array.from({ length: n }, () => rng.int(2) === 1), shape, 'bool'),
    ]) {
      const tiled = tf.tile(t, reps);
      expect(tiled.shape).toEqual(shape.map((d, i) => d * reps[i]));
      // Element (i0, i1, ...) of the result is element (i0 mod d0, i1 mod d1, ...) of the input.
      const values = t.arraySync();
      const read = (index: number[]) => index.reduce((x: unknown, i, dim) => (x as unknown[])[i % shape[dim]], values as unknown);
      const expected: number[] = [];
      const walk = (dim: number, index: number[]) => {
        if (dim === shape.length) return void expected.push(Number(read(index)));
        for (let i = 0; i < shape[dim] * reps[dim]; i++) walk(dim + 1, [...index, i]);
      };
      walk(0, []);
      expect(Array.from(tiled.dataSync()).map(Number)).toEqual(expected);
      tf.dispose([t, tiled]);
    }
  });
});
