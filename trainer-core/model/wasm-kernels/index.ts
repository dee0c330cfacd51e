/** TurnLab's own kernels for tfjs's wasm backend: each equals tfjs's own result bit for bit. */
import { installWasmBatchMatMul } from './batch-matmul';
import { installWasmSlice } from './slice';
import { installWasmTile } from './tile';

export { tfjsBatchMatMul } from './batch-matmul';

/** Call once the wasm backend is active; later calls do nothing. */
export function installWasmKernels(): void {
  installWasmBatchMatMul();
  installWasmSlice();
  installWasmTile();
}
