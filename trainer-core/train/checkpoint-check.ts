import type { RunConfig } from '../config/schema';
import { checkpointVocabSize, verifyCheckpoint, type TrainingState } from './checkpoint';
import { expectedModels, modelRoles } from './models';
import { usesPretrainedModel, verifyPretrainedCheckpoint } from './pretrained-models';
import { checkWarmStartConfig } from './warm-start-checkpoint';

/**
 * Checks a checkpoint against the config a run would continue it under, whichever kind of model
 * the run trains, before anything stored changes (a warm-start checkpoint, against the warm start
 * the config runs); returns its training state.
 */
export function verifyRunCheckpoint(dir: string, cfg: RunConfig, iteration?: number): TrainingState {
  const state = usesPretrainedModel(cfg)
    ? verifyPretrainedCheckpoint(dir, cfg, modelRoles(cfg), iteration)
    : verifyCheckpoint(dir, { ...expectedModels(cfg, checkpointVocabSize(dir)), iteration });
  if (state.warmStart) checkWarmStartConfig(dir, state.warmStart, cfg);
  return state;
}
