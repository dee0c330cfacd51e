/**
 * The start seeds a run's train rollouts play (RAGEN's schedule: each rollout moves on by the
 * number of groups, or through `es_manager.train.seeds` in turn), so a validation or an
 * evaluation can tell when its boards are ones the policy trained on.
 */
import type { RunConfig } from '../config/schema';

export interface TrainSeedOverlap {
  /** How many of the seeds asked about the first `iterations` rollouts played. */
  overlap: number;
  /** Where the train seeds come from, in the config's words. */
  trained: string;
  /** The first seed past every train seed of a run of `iterations` (a list's largest plus one). */
  past: number;
}

/** How many of the `count` start seeds from `start` the run's first `iterations` train rollouts played. */
export function trainSeedOverlap(cfg: RunConfig, iterations: number, start: number, count: number): TrainSeedOverlap {
  const train = cfg.es_manager.train;
  const end = start + count;
  if (train.seeds.length > 0) {
    const played = train.seeds.slice(0, Math.min(train.seeds.length, iterations * train.env_groups));
    return {
      overlap: new Set(played.filter((seed) => seed >= start && seed < end)).size,
      trained: 'es_manager.train.seeds',
      past: Math.max(...train.seeds) + 1,
    };
  }
  const trainEnd = train.start_seed + iterations * train.env_groups;
  return {
    overlap: Math.max(0, Math.min(trainEnd, end) - Math.max(train.start_seed, start)),
    trained: `es_manager.train.start_seed ${train.start_seed} on, ${train.env_groups} a rollout`,
    past: trainEnd,
  };
}

/**
 * An evaluation of a checkpoint at `iteration` whose start seeds (`eval --seed`, or an old run's
 * validation seeds) include boards the run had trained on by then: its success is then partly
 * recall. `cfg` is the evaluation's config (its validation split the episodes played).
 */
export function evaluationSeedNote(cfg: RunConfig, iteration: number): string | null {
  const { start_seed: start, env_groups: count } = cfg.es_manager.val;
  const { overlap, trained } = trainSeedOverlap(cfg, iteration, start, count);
  if (overlap === 0) return null;
  const past = trainSeedOverlap(cfg, cfg.trainer.total_training_steps, start, count).past;
  return (
    `note: ${overlap} of the ${count} start seeds this evaluation played (${start} on) are seeds the run trained on by iteration ${iteration} ` +
    `(${trained}), so its success partly measures boards the policy has seen; --seed chooses the boards, not the sampling: ` +
    `give one from ${past} on for boards the run never trains on`
  );
}
