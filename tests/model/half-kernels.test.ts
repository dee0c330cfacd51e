// The 16-bit products (model/half-ops.ts: wasm's half.wat kernel, cpu's JavaScript) against
// tfjs's float32 matMul on the widened matrix, and the widening against an independent reading
// of the bit patterns.
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { halfLinear } from '../../trainer-core/model/blocks/half-linear';
import { HalfMatrix, halfToFloat, kernelHolds, widenHalves } from '../../trainer-core/model/half-matrix';
import { halfAxpy, halfDot, halfGather } from '../../trainer-core/model/half-ops';
import { relativeError } from '../helpers/compare';
import { randomHalves, randomTensor } from '../helpers/half-values';

/** The error relative to the reference's scale, of two tensors. */
const relativeTo = (a: tf.Tensor, b: tf.Tensor): number => relativeError(a.dataSync(), b.dataSync());

for (const backend of ['wasm', 'cpu'] as const) {
  describe(`16-bit weights on ${backend}`, () => {
    beforeAll(async () => {
      await selectBackend(backend);
    });
    afterAll(() => {
      tf.disposeVariables();
    });

    it('widens bfloat16 and IEEE half exactly', () => {
      const all = Uint16Array.from({ length: 65536 }, (_, i) => i);
      const bf = widenHalves(all, 'BF16');
      const f16 = widenHalves(all, 'F16');
      const view = new DataView(new ArrayBuffer(4));
      const same = (a: number, b: number) => Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
      const wrong: number[] = [];
      for (let h = 0; h < 65536; h++) {
        view.setUint32(0, h * 65536);
        if (!same(bf[h], view.getFloat32(0)) || !same(f16[h], halfToFloat(h))) wrong.push(h);
      }
      expect(wrong).toEqual([]);
      // The products widen every pattern the same way (but a half infinity or NaN, which keeps a
      // matrix float32: kernelHolds).
      for (const format of ['BF16', 'F16'] as const) {
        expect(kernelHolds(all, 8, format)).toBe(format === 'BF16');
        const table = HalfMatrix.fromBits(all, 8192, 8, format);
        const rows = tf.tidy(() => halfGather(table, tf.range(0, 8192, 1, 'int32') as tf.Tensor1D).dataSync());
        const expected = format === 'BF16' ? bf : f16;
        const differ = Array.from(expected.keys()).filter((h) => !same(rows[h], expected[h]) && !(format === 'F16' && (h & 0x7c00) === 0x7c00));
        expect(differ).toEqual([]);
        table.dispose();
      }
    });

    // Rows at, below and past the kernel's tiles of four, odd output counts, widths of 8 and more.
    const shapes: Array<[number, number, number]> = [[1, 64, 5], [3, 8, 7], [4, 16, 2], [7, 136, 33], [13, 96, 64], [2, 1000, 9]];
    for (const format of ['BF16', 'F16'] as const) {
      it.each(shapes)(`${format}: x [%i, %i] times W [%i, in]^T, forward and gradient, equal float32 within 1e-5`, (rows, k, n) => {
        const w = HalfMatrix.fromBits(randomHalves(n * k, format, n + k), n, k, format);
        const wide = tf.tensor2d(widenHalves(randomHalves(n * k, format, n + k), format), [n, k]);
        tf.tidy(() => {
          const x = randomTensor([rows, k], 1);
          const dy = randomTensor([rows, n], 2);
          expect(relativeTo(halfDot(x, w), tf.matMul(x, wide, false, true))).toBeLessThan(1e-5);
          expect(relativeTo(halfAxpy(dy, w), tf.matMul(dy, wide))).toBeLessThan(1e-5);
          // Through the tape: the custom gradient is the same product.
          const ours = tf.grad((xs: tf.Tensor) => halfLinear(xs as tf.Tensor2D, w).mul(dy).sum())(x);
          const reference = tf.grad((xs: tf.Tensor) => tf.matMul(xs as tf.Tensor2D, wide, false, true).mul(dy).sum())(x);
          expect(relativeTo(ours, reference)).toBeLessThan(1e-5);
        });
        w.dispose();
        wide.dispose();
      });
    }

    it('gathers rows, and zeros for an id outside the table', () => {
      const halves = randomHalves(5 * 16, 'BF16', 3);
      const table = HalfMatrix.fromBits(halves, 5, 16, 'BF16');
      const wide = widenHalves(halves, 'BF16');
      const rows = tf.tidy(() => halfGather(table, tf.tensor1d([4, 0, 7, 4], 'int32')).arraySync());
      expect(rows[0]).toEqual(Array.from(wide.subarray(64, 80)));
      expect(rows[1]).toEqual(Array.from(wide.subarray(0, 16)));
      expect(rows[2]).toEqual(new Array(16).fill(0));
      expect(rows[3]).toEqual(rows[0]);
      table.dispose();
    });

    it('keeps a matrix float32 whose width is not a multiple of 8 or that holds a half infinity', () => {
      expect(kernelHolds(new Uint16Array(12), 12, 'BF16')).toBe(false);
      expect(kernelHolds(new Uint16Array(16), 16, 'F16')).toBe(true);
      expect(kernelHolds(Uint16Array.from([0, 0x7c00, 0, 0, 0, 0, 0, 0]), 8, 'F16')).toBe(false);
      expect(kernelHolds(Uint16Array.from([0, 0x7f80, 0, 0, 0, 0, 0, 0]), 8, 'BF16')).toBe(true);
    });

    it('holds two bytes a value on the backend', () => {
      const before = tf.memory().numBytes;
      const w = HalfMatrix.fromBits(new Uint16Array(64 * 32), 64, 32, 'BF16');
      expect(tf.memory().numBytes - before).toBe(64 * 32 * 2);
      expect(w.bytes).toBe(64 * 32 * 2);
      w.dispose();
      expect(tf.memory().numBytes).toBe(before);
    });
  });
}
