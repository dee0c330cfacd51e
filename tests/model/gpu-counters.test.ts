import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { countGpuWork, startGpuCounter } from '../../trainer-core/model/gpu-counters';

describe('GPU work counters', () => {
  beforeAll(async () => {
    await selectBackend('cpu');
  });

  it('counts kernels (as dispatches off WebGPU) and readbacks of a section, and nothing outside it', async () => {
    const a = tf.tensor1d([1, 2, 3]);
    const { result, counts } = await countGpuWork(async () => {
      const b = a.add(1).mul(2);
      const values = await b.data();
      const first = b.sum().dataSync()[0];
      b.dispose();
      return [Array.from(values), first];
    });
    expect(result).toEqual([[4, 6, 8], 18]);
    // add, mul and sum, each one tfjs kernel; two reads of tensor values.
    expect(counts).toEqual({ kernels: 3, dispatches: 3, pipelinesCompiled: 0, readbacks: 2, recordedDispatches: 0 });

    const counter = startGpuCounter();
    expect(counter.read()).toEqual({ kernels: 0, dispatches: 0, pipelinesCompiled: 0, readbacks: 0, recordedDispatches: 0 });
    a.square().dispose();
    expect(counter.read().kernels).toBe(1);
    a.dispose();
  });
});
