/**
 * TurnLab's own kernels for tfjs's wasm backend: the three tfjs kernels replaced here equal
 * tfjs's own result bit for bit; the LM head's softmax is registered as fused kernels.
 */
import { registerFusedKernels } from '../fused-kernels';
import { headSoftmaxSample, headSoftmaxScores, wasmHeadScoreKernels } from '../head-softmax';
import { installWasmBatchMatMul } from './batch-matmul';
import { installWasmSlice } from './slice';
import { installWasmTile } from './tile';

export { tfjsBatchMatMul } from './batch-matmul';

/** Call once the wasm backend is active; later calls do nothing. */
export function installWasmKernels(): void {
  installWasmBatchMatMul();
  installWasmSlice();
  installWasmTile();
  registerFusedKernels('wasm', { headScores: wasmHeadScoreKernels, headSoftmax: { scores: headSoftmaxScores, sample: headSoftmaxSample } });
}
