import { resolve } from 'node:path';
import type { Store } from '../store';
import { resolveFinishedCheckpoint } from './checkpoint-refs';
import { HfModelError, notANewFolder } from '../../trainer-core';

export interface ModelExportResult {
  checkpointId: number;
  runId: number;
  iteration: number;
  out: string;
  merged: boolean;
  /** The weights' dtype: the one asked for, else the base's own for adapters written beside it (F32 otherwise). */
  dtype: 'F32' | 'BF16';
}

/**
 * Writes a pretrained run's checkpoint as a Hugging Face folder that transformers and vLLM load:
 * with `merged`, the LoRA adapters folded into the weights; without, the base weights and the
 * adapter beside them in PEFT's layout.
 */
export async function exportModel(
  store: Store,
  ref: string,
  out: string,
  options: { merged: boolean; dtype?: 'F32' | 'BF16'; log?: (line: string) => void },
): Promise<ModelExportResult> {
  const checkpoint = resolveFinishedCheckpoint(store, ref, 'export');
  // Before the backend and the weights load (minutes for a large model), not after.
  const taken = notANewFolder(resolve(out));
  if (taken !== null) throw new HfModelError(`${taken}; choose a new folder for the export`);
  const { selectBackend } = await import('../../trainer-core/compute');
  const { openCheckpointPolicy } = await import('../../trainer-core/compute');
  const { exportHfFolder } = await import('../../trainer-core/compute');
  await selectBackend('auto', options.log);
  const models = await openCheckpointPolicy(resolve(store.dataDir, checkpoint.path));
  try {
    const target = resolve(out);
    const dtype = await exportHfFolder(models.folder, models.policy, target, { merged: options.merged, dtype: options.dtype });
    return { checkpointId: checkpoint.id, runId: checkpoint.runId, iteration: models.iteration, out: target, merged: options.merged, dtype };
  } finally {
    models.dispose();
  }
}
