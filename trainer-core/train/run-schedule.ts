/**
 * The run's learning rates across its iterations: verl's schedules spread over
 * `trainer.total_training_steps`, so the total a run trains under shapes every rate it used.
 */
import { learningRateAt } from '../algo/lr-schedule';
import type { RunConfig } from '../config/schema';
import { modelRoles } from './models';

type Optim = RunConfig['critic']['optim'];

export function scheduledLearningRate(o: Optim, iteration: number, totalIterations: number): number {
  return learningRateAt(iteration, {
    schedule: o.lr_scheduler_type,
    lr: o.lr,
    totalIterations,
    warmupRatio: o.lr_warmup_steps_ratio,
    minLrRatio: o.min_lr_ratio,
    numCycles: o.num_cycles,
  });
}

/**
 * A resume or fork under another total than its checkpoint trained under: with a cosine or a
 * warmup, the iterations up to the checkpoint had the old total's rates and those after it get
 * the new one's, so the run is not the one the new total gives from the start (the same seed
 * notwithstanding), and its rate jumps at the seam. Said, since nothing else shows it but
 * `actor/lr`; null where the totals give the same rates (a constant rate, no warmup).
 */
export function scheduleTotalNote(cfg: RunConfig, checkpointTotal: number, iteration: number): string | null {
  const total = cfg.trainer.total_training_steps;
  if (total === checkpointTotal || iteration < 1) return null;
  const sections: { key: string; metric: string; optim: Optim }[] = [{ key: 'actor_rollout_ref.actor.optim', metric: 'actor/lr', optim: cfg.actor_rollout_ref.actor.optim }];
  if (modelRoles(cfg).critic) sections.push({ key: 'critic.optim', metric: 'critic/lr', optim: cfg.critic.optim });
  const changed = sections.filter(({ optim }) =>
    Array.from({ length: iteration }, (_, i) => i + 1).some((i) => scheduledLearningRate(optim, i, checkpointTotal) !== scheduledLearningRate(optim, i, total)),
  );
  if (changed.length === 0) return null;
  const { metric, optim } = changed[0];
  const rate = (i: number, of: number) => scheduledLearningRate(optim, i, of).toExponential(2);
  const span = (from: number, to: number) => (from === to ? `iteration ${from}` : `iterations ${from}-${to}`);
  const kinds = changed.map((c) => `${c.key}: ${c.optim.lr_scheduler_type}${c.optim.lr_warmup_steps_ratio > 0 ? ' after a warmup' : ''}`);
  return (
    `the learning rate's schedule (${kinds.join('; ')}) spans trainer.total_training_steps: ${span(1, iteration)} trained under ${checkpointTotal}, ` +
    `${span(iteration + 1, total)} under ${total} (${metric} ${rate(iteration, checkpointTotal)} at ${iteration}, then ${rate(iteration + 1, total)} at ${iteration + 1}), ` +
    `so this run is not the one trainer.total_training_steps=${total} trains from the start with the same seed; to have that run, train with that total from the start`
  );
}
