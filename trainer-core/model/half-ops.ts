/**
 * The three products with a 16-bit matrix W [N, K] (half-matrix.ts), widened as they are read:
 * on wasm by TurnLab's kernel (wasm-kernels/half.wat, SIMD, on tfjs's own memory, so neither
 * the inputs nor W are copied), on WebGPU by WGSL kernels (webgpu/half-products.ts), on cpu in
 * plain JavaScript. None records a gradient: the blocks (blocks/half-linear.ts) give them one.
 */
import * as tf from '@tensorflow/tfjs';
import { halfValues, type HalfMatrix } from './half-matrix';
import { addressOf, halfKernelsFor, type WasmBackendInternals } from './wasm-kernels/instance';
import { halfGatherRows, halfProductForward, halfProductGradient } from './webgpu/half-products';

/** Y[R, N] = X[R, K] W^T: a linear layer's output for inputs x, or an LM head's logits. */
export function halfDot(x: tf.Tensor2D, w: HalfMatrix): tf.Tensor2D {
  const [rows, k] = x.shape;
  if (k !== w.cols) throw new Error(`A [${x.shape}] input cannot multiply a 16-bit [${w.rows}, ${w.cols}] weight`);
  if (onWebgpu()) return rows * w.rows > 0 ? halfProductForward(x, w) : tf.zeros([rows, w.rows]);
  return run([rows, w.rows], x, w, (kernels, at) => kernels.dot(at.input, at.w, at.out, rows, k, w.rows, at.f16), (xs, halves, out) => {
    const widen = widener(w);
    for (let r = 0; r < rows; r++) {
      for (let n = 0; n < w.rows; n++) {
        let sum = 0;
        for (let j = 0; j < k; j++) sum += xs[r * k + j] * widen(halves[n * k + j]);
        out[r * w.rows + n] = sum;
      }
    }
  });
}

/** Z[R, K] = G[R, N] W: the gradient of a linear layer's input, or of the hidden states through an LM head. */
export function halfAxpy(g: tf.Tensor2D, w: HalfMatrix): tf.Tensor2D {
  const [rows, n] = g.shape;
  if (n !== w.rows) throw new Error(`A [${g.shape}] gradient cannot multiply a 16-bit [${w.rows}, ${w.cols}] weight`);
  const k = w.cols;
  if (onWebgpu()) return rows * k > 0 ? halfProductGradient(g, w) : tf.zeros([rows, k]);
  return run([rows, k], g, w, (kernels, at) => kernels.axpy(at.input, at.w, at.out, rows, n, k, at.f16), (gs, halves, out) => {
    const widen = widener(w);
    for (let r = 0; r < rows; r++) {
      for (let i = 0; i < n; i++) {
        const scale = gs[r * n + i];
        for (let j = 0; j < k; j++) out[r * k + j] += scale * widen(halves[i * k + j]);
      }
    }
  });
}

/** W's rows at `ids` (int32), widened: [ids, K]. An id outside the table gives a row of zeros. */
export function halfGather(w: HalfMatrix, ids: tf.Tensor1D): tf.Tensor2D {
  const count = ids.size;
  const k = w.cols;
  if (onWebgpu()) return count * k > 0 ? halfGatherRows(w, ids) : tf.zeros([count, k]);
  return run([count, k], ids, w, (kernels, at) => kernels.gather(at.w, at.input, at.out, count, k, w.rows, at.f16), (idValues, halves, out) => {
    const widen = widener(w);
    for (let i = 0; i < count; i++) {
      const id = idValues[i];
      if (!(id >= 0 && id < w.rows)) continue;
      for (let j = 0; j < k; j++) out[i * k + j] = widen(halves[id * k + j]);
    }
  });
}

interface Addresses {
  input: number;
  w: number;
  out: number;
  f16: number;
}

type WasmCall = (kernels: ReturnType<typeof halfKernelsFor>, at: Addresses) => void;
type JsCall = (input: Float32Array | Int32Array, halves: Uint16Array, out: Float32Array) => void;

function onWebgpu(): boolean {
  return tf.getBackend() === 'webgpu';
}

function run(shape: [number, number], input: tf.Tensor, w: HalfMatrix, wasm: WasmCall, js: JsCall): tf.Tensor2D {
  const name = tf.getBackend();
  if (w.inMajor) throw new Error(`A 16-bit matrix made for ${w.madeFor} cannot be read on ${name}; load the model on this backend`);
  if (name === 'wasm') {
    const backend = tf.backend() as unknown as WasmBackendInternals;
    const out = backend.makeOutput(shape, 'float32');
    if (shape[0] * shape[1] > 0) {
      wasm(halfKernelsFor(backend), { input: addressOf(backend, input), w: addressOf(backend, w.bits), out: addressOf(backend, out), f16: w.format === 'F16' ? 1 : 0 });
    }
    return tf.engine().makeTensorFromTensorInfo(out) as tf.Tensor2D;
  }
  if (name !== 'cpu') throw new Error(`16-bit weights have no products on the ${name} backend; load the model as float32`);
  const backend = tf.backend();
  const packed = backend.readSync(w.bits.dataId) as Int32Array;
  const out = new Float32Array(shape[0] * shape[1]);
  js(backend.readSync(input.dataId) as Float32Array | Int32Array, new Uint16Array(packed.buffer, packed.byteOffset, w.size), out);
  return tf.tensor2d(out, shape);
}

function widener(w: HalfMatrix): (h: number) => number {
  if (w.format === 'F16') {
    const table = halfValues();
    return (h) => table[h];
  }
  const bits = new Uint32Array(1);
  const value = new Float32Array(bits.buffer);
  return (h) => {
    bits[0] = h << 16;
    return value[0];
  };
}
