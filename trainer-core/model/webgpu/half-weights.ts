/**
 * WGSL that reads frozen weights kept 16-bit (model/half-matrix.ts) inside a kernel: WGSL has no
 * bfloat16, so the values sit two to a 32-bit word (tfjs binds the int32 tensor as array<i32>),
 * the even element in the lower half, and are widened to f32 as they are read.
 *
 * The widening is exact. bfloat16 is the upper half of a float32's bits. IEEE half is widened by
 * moving its exponent and mantissa into place rather than by unpack2x16float, which WGSL lets an
 * implementation run with subnormal halves flushed to zero; a half infinity or NaN never reaches
 * a kernel (kernelHolds keeps such a matrix float32).
 *
 * Any kernel that binds a packed matrix includes `widenHalfWgsl(format)` once and
 * `halfReaderWgsl(name)` for each packed input, then calls `read<Name>(element)`, or
 * `widenHalfPair(word)` where it reads whole words.
 */
import type { HalfFormat } from '../half-matrix';

/** `fn widenHalf(h : u32) -> f32` (h in the lower 16 bits) and `fn widenHalfPair(word : i32) -> vec2<f32>`. */
export function widenHalfWgsl(format: HalfFormat): string {
  const widen =
    format === 'BF16'
      ? 'return bitcast<f32>(h << 16u);'
      : `let magnitude = select(bitcast<f32>(((h & 0x7fffu) << 13u) + 0x38000000u), f32(h & 0x3ffu) * 5.9604644775390625e-8, (h & 0x7c00u) == 0u);
        return select(magnitude, -magnitude, (h & 0x8000u) != 0u);`;
  return `
      fn widenHalf(h : u32) -> f32 {
        ${widen}
      }
      fn widenHalfPair(word : i32) -> vec2<f32> {
        let bits = bitcast<u32>(word);
        return vec2<f32>(widenHalf(bits & 0xffffu), widenHalf(bits >> 16u));
      }`;
}

/** `fn read<Name>(element : i32) -> f32`: 16-bit element `element` of the packed array `name`. */
export function halfReaderWgsl(name: string): string {
  return `
      fn read${name}(element : i32) -> f32 {
        let word = bitcast<u32>(${name}[element >> 1u]);
        return widenHalf(select(word & 0xffffu, word >> 16u, (element & 1) == 1));
      }`;
}
