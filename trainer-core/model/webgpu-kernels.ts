/**
 * Fixes for tfjs's WebGPU backend. AddN binds every input as its own storage buffer in one
 * shader, and a WebGPU device allows 8 per stage unless asked for more (tfjs does not ask): the
 * global gradient norm sums one scalar per weight tensor (28 for FrozenLake's model, about 290 for
 * Qwen2.5-0.5B), and with more than 7 the pipeline is invalid, Dawn prints validation errors and
 * the sum is never computed. Seen on an NVIDIA H200 and on llvmpipe alike.
 */
import * as tf from '@tensorflow/tfjs';

interface AddNArgs {
  inputs: tf.TensorInfo[];
  backend: { device: { limits: { maxStorageBuffersPerShaderStage: number } }; disposeData(dataId: object): void };
  attrs: Record<string, never>;
}

let installed = false;

/** Call once the WebGPU backend is active; later calls do nothing. */
export function installWebgpuKernels(): void {
  if (installed) return;
  const original = tf.getKernel(tf.AddN, 'webgpu');
  if (!original) throw new Error('The webgpu backend has no AddN kernel to build on');
  const kernel = original.kernelFunc as unknown as (args: AddNArgs) => tf.TensorInfo;

  // Chunks fold left to right (the running sum is each chunk's first input), so the sum is
  // added in the same order as one AddN over all inputs would add it.
  const addN = (args: AddNArgs): tf.TensorInfo => {
    const { inputs, backend } = args;
    const perShader = backend.device.limits.maxStorageBuffersPerShaderStage - 1;
    if (inputs.length <= perShader) return kernel(args);
    let sum = kernel({ ...args, inputs: inputs.slice(0, perShader) });
    for (let at = perShader; at < inputs.length; at += perShader - 1) {
      const next = kernel({ ...args, inputs: [sum, ...inputs.slice(at, at + perShader - 1)] });
      backend.disposeData(sum.dataId);
      sum = next;
    }
    return sum;
  };

  tf.unregisterKernel(tf.AddN, 'webgpu');
  tf.registerKernel({ ...original, kernelFunc: addN as unknown as tf.KernelFunc });
  installed = true;
}
