/** Random 16-bit weights and float32 inputs for the tests of the 16-bit products, seeded. */
import * as tf from '@tensorflow/tfjs';
import type { HalfFormat } from '../../trainer-core/model/half-matrix';
import { toBf16Bits } from '../../trainer-core/model/hf/weights';
import { Rng } from '../../trainer-core/rng';

/** Zero, negative zero, subnormals, the smallest normal and (for F16) the largest finite values. */
const EDGES: Record<HalfFormat, number[]> = {
  F16: [0x0000, 0x8000, 0x0001, 0x83ff, 0x7bff, 0xfbff, 0x0400],
  BF16: [0x0000, 0x8000, 0x0001, 0x807f, 0x0080],
};

/** Random weights as 16-bit patterns; every 97th one of `edges`. */
export function randomHalves(size: number, format: HalfFormat, seed: number, edges: number[] = EDGES[format]): Uint16Array {
  const rng = new Rng(seed);
  return Uint16Array.from({ length: size }, (_, i) => {
    if (i % 97 === 0) return edges[(i / 97) % edges.length];
    if (format === 'BF16') return toBf16Bits(rng.normal() * 0.3);
    // A random sign, exponent (values about 2^-10 to 2) and mantissa.
    return (rng.next() < 0.5 ? 0x8000 : 0) | ((5 + rng.int(11)) << 10) | rng.int(1024);
  });
}

export function randomTensor(shape: [number, number], seed: number): tf.Tensor2D {
  const rng = new Rng(seed);
  return tf.tensor2d(Float32Array.from({ length: shape[0] * shape[1] }, () => rng.normal()), shape);
}
