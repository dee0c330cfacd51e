/**
 * Slice for tfjs's wasm backend without a JavaScript object per row.
 *
 * tfjs-wasm (4.22) copies a non-contiguous slice row by row in JavaScript, creating a typed-array
 * view for every row: slicing Q, K and V out of the fused projection (thousands of rows) took
 * over a millisecond each time. A contiguous slice first reads the whole input out of the wasm
 * heap into a JavaScript copy (readSync), so taking a few rows of a KV cache copied all of it:
 * 5 ms a slice, half of a Sokoban rollout's kernel time. This kernel (slice in kernels.wat)
 * copies only the box, with memory.copy. Strings and ranks above four stay with tfjs's kernel.
 */
import * as tf from '@tensorflow/tfjs';
import { addressOf, ELEMENT_BYTES, kernelsFor, type WasmBackendInternals } from './instance';

interface SliceArgs {
  inputs: { x: tf.TensorInfo };
  backend: WasmBackendInternals;
  attrs: { begin: number | number[]; size: number | number[] };
}

let installed = false;

export function installWasmSlice(): void {
  if (installed) return;
  const original = tf.getKernel(tf.Slice, 'wasm');
  if (!original) throw new Error('The wasm backend has no Slice kernel to build on');
  const fallback = original.kernelFunc as unknown as (args: SliceArgs) => tf.TensorInfo;

  const slice = (args: SliceArgs): tf.TensorInfo => {
    const { inputs: { x }, backend, attrs } = args;
    const bytes = ELEMENT_BYTES[x.dtype];
    const rank = x.shape.length;
    if (!bytes || rank > 4 || rank === 0) return fallback(args);
    const [begin, size] = tf.slice_util.parseSliceParams(x as tf.Tensor, attrs.begin, attrs.size);
    const out = backend.makeOutput(size, x.dtype);
    if (size.some((s) => s === 0)) return out;
    const kernels = kernelsFor(backend);
    if (tf.slice_util.isSliceContinous(x.shape, begin, size)) {
      const first = tf.slice_util.computeFlatOffset(begin, tf.util.computeStrides(x.shape));
      kernels.slice(addressOf(backend, x) + first * bytes, addressOf(backend, out), 1, 1, 1, 0, 0, 0, tf.util.sizeFromShape(size) * bytes);
      return out;
    }
    const pad = 4 - rank;
    const shape4 = [...Array(pad).fill(1), ...x.shape];
    const begin4 = [...Array(pad).fill(0), ...begin];
    const size4 = [...Array(pad).fill(1), ...size];
    const strides = [shape4[1] * shape4[2] * shape4[3], shape4[2] * shape4[3], shape4[3], 1];
    const first = begin4.reduce((sum, b, i) => sum + b * strides[i], 0);
    kernels.slice(
      addressOf(backend, x) + first * bytes, addressOf(backend, out),
      size4[0], size4[1], size4[2],
      strides[0] * bytes, strides[1] * bytes, strides[2] * bytes, size4[3] * bytes,
    );
    return out;
  };

  tf.unregisterKernel(tf.Slice, 'wasm');
  tf.registerKernel({ ...original, kernelFunc: slice as unknown as tf.KernelFunc });
  installed = true;
}
