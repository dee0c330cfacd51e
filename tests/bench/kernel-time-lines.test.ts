import { describe, expect, it } from 'vitest';
import { kernelTimeLines } from '../../bench/lib/gpu-work';

describe('kernelTimeLines (bench/llm.ts --profile)', () => {
  it("gives a kernel registered per layer kind one total line, then its kinds' lines that sum to it", () => {
    const runs = [
      ...Array.from({ length: 3 }, () => ({ name: 'TurnLabTiledDecodeLinear[qkv]', ms: 1 })),
      { name: 'TurnLabTiledDecodeLinear[head]', ms: 5 },
      { name: 'BatchMatMul', ms: 2 },
      { name: 'Add', ms: 0 },
    ];
    expect(kernelTimeLines(runs)).toEqual([
      'TurnLabTiledDecodeLinear: 8.00 ms in 4 runs (80.0%)',
      '  TurnLabTiledDecodeLinear[head]: 5.00 ms in 1 runs (50.0%)',
      '  TurnLabTiledDecodeLinear[qkv]: 3.00 ms in 3 runs (30.0%)',
      'BatchMatMul: 2.00 ms in 1 runs (20.0%)',
      'Add: 0.00 ms in 1 runs (0.0%)',
    ]);
    // `top` counts kernels, not their kinds' lines.
    expect(kernelTimeLines(runs, 1)).toHaveLength(3);
  });
});
