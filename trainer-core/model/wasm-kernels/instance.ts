/**
 * The compiled kernels.wat, instantiated once per tfjs wasm backend on that backend's own memory,
 * so a kernel reads its inputs and writes its output where tfjs keeps them, without copies.
 */
import type * as tf from '@tensorflow/tfjs';
import { WASM_BASE64 as HALF_BASE64 } from './half-binary';
import { WASM_BASE64 as HEAD_BASE64 } from './head-binary';
import { WASM_BASE64 } from './kernels-binary';

/** The parts of tfjs-wasm's BackendWasm the kernels use (not in its public typings). */
export interface WasmBackendInternals {
  /** Emscripten's module; `asm.memory` is the WebAssembly.Memory every tensor lives in. */
  wasm: { asm: { memory: object } };
  dataIdMap: { get(dataId: object): { memoryOffset: number } };
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  disposeData(dataId: object): void;
}

export interface WasmKernels {
  matmul(a: number, b: number, c: number, batch: number, m: number, k: number, n: number, strideAi: number, strideAk: number, batchStrideA: number, batchStrideB: number): void;
  slice(x: number, out: number, s0: number, s1: number, s2: number, xs0: number, xs1: number, xs2: number, run: number): void;
}

/** half.wat: products with a 16-bit matrix W [N, K], widened in registers (K a multiple of 8; f16 0 for bfloat16, 1 for IEEE half). */
export interface HalfKernels {
  /** Y[R, N] = X[R, K] W^T */
  dot(x: number, w: number, y: number, rows: number, k: number, n: number, f16: number): void;
  /** Z[R, K] = G[R, N] W */
  axpy(g: number, w: number, z: number, rows: number, n: number, k: number, f16: number): void;
  /** Z[i] = W[ids[i]] (zeros for an id outside [0, N)) */
  gather(w: number, ids: number, z: number, count: number, k: number, n: number, f16: number): void;
}

/** head.wat: the softmax of rows of an LM head's raw logits z [R, V] (float32), at temperature 1 / invT. */
export interface HeadKernels {
  /** out[R, 3] = (log-sum-exp, logprob of ids[r], entropy); with c1 (not 0) also the last two's gradients: c1[R, V] and, over z, the entropy's. */
  stats(z: number, ids: number, rows: number, vocab: number, invT: number, out: number, c1: number): void;
  /**
   * out[R, 2] = (token, its logprob) drawn at draws[r] (inverse CDF), or the argmax when greedy;
   * rows with a negative draw are skipped. blocks: 16 bytes of scratch per 256 logits of a row.
   */
  sample(z: number, draws: number, rows: number, vocab: number, invT: number, greedy: number, out: number, blocks: number): void;
}

/** The WebAssembly API, which this project's Node typings (no DOM lib) do not declare. */
const WebAssemblyApi = (globalThis as unknown as {
  WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object, imports: object) => { exports: unknown } };
}).WebAssembly;

/** Bytes per element as tfjs-wasm stores each dtype (bool as one byte); strings are not in the heap. */
export const ELEMENT_BYTES: Partial<Record<tf.DataType, number>> = { float32: 4, int32: 4, bool: 1 };

/** One compiled module, instantiated once per backend on that backend's memory. */
function instancesOf<T>(base64: string): (backend: WasmBackendInternals) => T {
  let compiled: object | null = null;
  const instances = new WeakMap<object, T>();
  return (backend) => {
    let kernels = instances.get(backend);
    if (!kernels) {
      compiled ??= new WebAssemblyApi.Module(Buffer.from(base64, 'base64'));
      kernels = new WebAssemblyApi.Instance(compiled, { env: { memory: backend.wasm.asm.memory } }).exports as unknown as T;
      instances.set(backend, kernels);
    }
    return kernels;
  };
}

export const kernelsFor = instancesOf<WasmKernels>(WASM_BASE64);
export const halfKernelsFor = instancesOf<HalfKernels>(HALF_BASE64);
export const headKernelsFor = instancesOf<HeadKernels>(HEAD_BASE64);

/** Byte address of a tensor's data in the backend's memory. */
export function addressOf(backend: WasmBackendInternals, t: tf.TensorInfo): number {
  return backend.dataIdMap.get(t.dataId).memoryOffset;
}
