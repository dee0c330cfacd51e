import type { RunConfig } from '../config/schema';
import { checkpointVocabSize, verifyCheckpoint, type TrainingState } from './checkpoint';
import { expectedModels, modelRoles } from './models';
import { usesPretrainedModel, verifyPretrainedCheckpoint } from './pretrained-models';

/**
 * Checks a checkpoint against the config a run would continue it under, whichever kind of model
 * the run trains, before anything stored changes; returns its training state.
 */
export function verifyRunCheckpoint(dir: string, cfg: RunConfig, iteration?: number): TrainingState {
  if (usesPretrainedModel(cfg)) return verifyPretrainedCheckpoint(dir, cfg, modelRoles(cfg), iteration);
  return verifyCheckpoint(dir, { ...expectedModels(cfg, checkpointVocabSize(dir)), iteration });
}
