/**
 * Tile for tfjs's wasm backend when only leading dimensions repeat (a batch of copies, as the
 * shared-prefix scorer tiles the prefix's keys, values and logits): whole blocks copied with
 * memory.copy. tfjs-wasm's kernel computes an index per element, several milliseconds for a
 * prefix's logits. Any other pattern stays with tfjs's kernel.
 */
import * as tf from '@tensorflow/tfjs';
import { addressOf, ELEMENT_BYTES, kernelsFor, type WasmBackendInternals } from './instance';

interface TileArgs {
  inputs: { x: tf.TensorInfo };
  backend: WasmBackendInternals;
  attrs: { reps: number[] };
}

let installed = false;

export function installWasmTile(): void {
  if (installed) return;
  const original = tf.getKernel(tf.Tile, 'wasm');
  if (!original) throw new Error('The wasm backend has no Tile kernel to build on');
  const fallback = original.kernelFunc as unknown as (args: TileArgs) => tf.TensorInfo;

  const tile = (args: TileArgs): tf.TensorInfo => {
    const { inputs: { x }, backend, attrs: { reps } } = args;
    const bytes = ELEMENT_BYTES[x.dtype];
    // Repeats only before the first dimension that stays, and every dimension before it of size 1.
    const kept = reps.findIndex((r) => r === 1);
    const leading = kept === -1 ? reps.length : kept;
    const simple = bytes && reps.slice(leading).every((r) => r === 1) && x.shape.slice(0, leading).every((d) => d === 1);
    if (!simple) return fallback(args);
    const out = backend.makeOutput(x.shape.map((d, i) => d * reps[i]), x.dtype);
    const block = tf.util.sizeFromShape(x.shape) * bytes;
    const copies = reps.slice(0, leading).reduce((a, b) => a * b, 1);
    if (block === 0 || copies === 0) return out;
    const kernels = kernelsFor(backend);
    const from = addressOf(backend, x);
    const to = addressOf(backend, out);
    for (let c = 0; c < copies; c++) kernels.slice(from, to + c * block, 1, 1, 1, 0, 0, 0, block);
    return out;
  };

  tf.unregisterKernel(tf.Tile, 'wasm');
  tf.registerKernel({ ...original, kernelFunc: tile as unknown as tf.KernelFunc });
  installed = true;
}
