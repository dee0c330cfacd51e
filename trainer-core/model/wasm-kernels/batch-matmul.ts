/**
 * A faster BatchMatMul for tfjs's wasm backend, equal to tfjs's own bit for bit.
 *
 * tfjs-wasm (4.22) sends a matmul to XNNPACK only when it is one 2-D product without transposes;
 * everything else (attention's [batch x heads] products, any transposed operand) goes through a
 * scalar loop that profiles at 1-2 GFLOP/s, 10-20x below XNNPACK, and was the largest cost of a
 * training step on long multi-turn sequences. This kernel (matmul in kernels.wat) vectorises the same
 * loop over four output columns and keeps its order of summation, so every product, and every
 * run, stays exactly what it was. 2-D products without transposes still go to XNNPACK.
 */
import * as tf from '@tensorflow/tfjs';
import { addressOf, kernelsFor, type WasmBackendInternals } from './instance';

interface BatchMatMulArgs {
  inputs: { a: tf.TensorInfo; b: tf.TensorInfo };
  backend: WasmBackendInternals;
  attrs: { transposeA: boolean; transposeB: boolean };
}

const size = (dims: readonly number[]): number => dims.reduce((a, b) => a * b, 1);

let installed = false;
let tfjsKernel: ((args: BatchMatMulArgs) => tf.TensorInfo) | null = null;

/** tfjs's own kernel on the active wasm backend (what this one must equal): for tests and benches. */
export function tfjsBatchMatMul(a: tf.Tensor, b: tf.Tensor, transposeA = false, transposeB = false): tf.Tensor {
  if (!tfjsKernel) throw new Error('installWasmBatchMatMul() has not run: select the wasm backend first');
  const backend = tf.backend() as unknown as WasmBackendInternals;
  const info = tfjsKernel({ inputs: { a, b }, backend, attrs: { transposeA, transposeB } });
  return tf.engine().makeTensorFromTensorInfo(info);
}

/** Replaces the wasm backend's BatchMatMul kernel (once per process or worker thread). */
export function installWasmBatchMatMul(): void {
  if (installed) return;
  const original = tf.getKernel(tf.BatchMatMul, 'wasm');
  const transpose = tf.getKernel(tf.Transpose, 'wasm');
  if (!original || !transpose) throw new Error('The wasm backend has no BatchMatMul or Transpose kernel to build on');
  const fallback = original.kernelFunc as unknown as (args: BatchMatMulArgs) => tf.TensorInfo;
  tfjsKernel = fallback;
  const transposeFunc = transpose.kernelFunc as unknown as (args: { inputs: { x: tf.TensorInfo }; backend: WasmBackendInternals; attrs: { perm: number[] } }) => tf.TensorInfo;

  const batchMatMul = (args: BatchMatMulArgs): tf.TensorInfo => {
    const { inputs: { a, b }, backend, attrs: { transposeA, transposeB } } = args;
    const outerA = a.shape.slice(0, -2);
    const outerB = b.shape.slice(0, -2);
    const batch = size(outerA);
    // XNNPACK's case, broadcasting, and other dtypes stay with tfjs's kernel.
    const plain2d = batch === 1 && size(outerB) === 1 && !transposeA && !transposeB;
    if (plain2d || a.dtype !== 'float32' || b.dtype !== 'float32' || size(outerB) !== batch || a.shape.length < 2 || b.shape.length < 2) {
      return fallback(args);
    }
    const [aRows, aCols] = a.shape.slice(-2);
    const [bRows, bCols] = b.shape.slice(-2);
    const m = transposeA ? aCols : aRows;
    const k = transposeA ? aRows : aCols;
    const n = transposeB ? bRows : bCols;
    if ((transposeB ? bCols : bRows) !== k) return fallback(args); // let tfjs word the shape error
    const outShape = (outerA.length >= outerB.length ? outerA : outerB).concat([m, n]);
    const out = backend.makeOutput(outShape, 'float32');
    if (batch * m * n === 0) return out;
    // B transposed is copied once into [batch, k, n], so each output row reads it in order.
    const bRowMajor = transposeB
      ? transposeFunc({ inputs: { x: { dataId: b.dataId, shape: [batch, n, k], dtype: 'float32' } }, backend, attrs: { perm: [0, 2, 1] } })
      : b;
    const at = (t: tf.TensorInfo) => addressOf(backend, t);
    kernelsFor(backend).matmul(at(a), at(bRowMajor), at(out), batch, m, k, n, transposeA ? 1 : k, transposeA ? m : 1, m * k, k * n);
    if (bRowMajor !== b) backend.disposeData(bRowMajor.dataId);
    return out;
  };

  tf.unregisterKernel(tf.BatchMatMul, 'wasm');
  // The original setup runs again if the backend is re-created, so the fallback stays bound.
  tf.registerKernel({ ...original, kernelFunc: batchMatMul as unknown as tf.KernelFunc });
  installed = true;
}
