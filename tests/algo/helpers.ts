import { expect } from 'vitest';

export const f32 = (xs: number[]): Float32Array => Float32Array.from(xs);

/** Element-wise closeness for float32 results checked against hand-worked float64 numbers. */
export function expectAllClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol = 1e-5): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const diff = Math.abs(actual[i] - expected[i]);
    if (!(diff <= tol)) {
      throw new Error(`index ${i}: got ${actual[i]}, expected ${expected[i]} (|diff| ${diff} > ${tol})\nactual:   ${Array.from(actual).join(', ')}\nexpected: ${Array.from(expected).join(', ')}`);
    }
  }
}
