// How a checkpoint reads in the tables (the Checkpoints view, `turnlab show`): code both sides run.
import type { CheckpointDto } from './contract';

/** What a warm-start checkpoint is, for a tooltip or a note. */
export const WARM_START_CHECKPOINT_NOTE =
  "a warm-start checkpoint (warm_start.save_freq): where the run's stopped warm start goes on from; no finished policy to fork, evaluate or export";

/** The iteration column: a warm-start checkpoint (at iteration 0) by its step, so it is never read as iter-0's policy. */
export function checkpointIterationText(checkpoint: Pick<CheckpointDto, 'iteration' | 'warmStartStep'>): string {
  return checkpoint.warmStartStep === null ? String(checkpoint.iteration) : `warm start, step ${checkpoint.warmStartStep} (resumes the run)`;
}
