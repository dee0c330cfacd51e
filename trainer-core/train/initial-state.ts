import { createKlController } from '../algo/kl-controller';
import type { RunConfig } from '../config/schema';
import type { EnvStateManagerState } from '../rollout/es-manager';
import { deriveSeed, Rng } from '../rng';
import type { TrainingState } from './checkpoint';

/** The counters and random streams a new run's RL starts from, seeded by `trainer.seed`. */
export function initialTrainingState(cfg: RunConfig, esTrain: EnvStateManagerState): TrainingState {
  const seed = cfg.trainer.seed;
  const kl = cfg.algorithm.kl_ctrl;
  return {
    iteration: 0,
    rng: {
      sampling: new Rng(deriveSeed(seed, 'sampling')).state(),
      minibatch: new Rng(deriveSeed(seed, 'minibatch')).state(),
      validation: new Rng(deriveSeed(seed, 'validation')).state(),
    },
    esTrain,
    klController: createKlController({ type: kl.type, klCoef: kl.kl_coef, targetKl: kl.target_kl, horizon: kl.horizon }).state(),
    totalTokens: 0,
    totalEpisodes: 0,
    totalEnvSteps: 0,
  };
}
