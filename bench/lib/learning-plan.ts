/**
 * What `npm run bench -- learning` will train: for each config and seed its shared warm start
 * (when the config has one) and each variant's run, with the overrides each needs; the results
 * are filled in as they come. Planned before anything trains, so a variant that could not share
 * the warm start is refused before an hour of it is spent.
 */
import { BenchArgumentError } from './bench-errors';
import { existsSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EnvStateManager, loadEnvSpecResolver } from '../../trainer-core';
import { closestName } from '../../trainer-core/closest-name';
import { loadRunConfig } from '../../trainer-core/config';
import type { RunConfig } from '../../trainer-core/config/schema';
import { hasDemonstrations, hasWarmStart } from '../../trainer-core/train/session';
import type { HeldOut } from './held-out-evaluation';
import { shapingLabel, variantName, variantOverrides, warmStartDivergence, type Variant } from './learning-variants';
import { forkOverrides, type TrainedRun } from './shared-warm-start';
import type { SuccessGain } from './success-gain';

/** A variant's overrides, refused when its fresh run's warm start would differ from the shared one. */
export function plannedOverrides(path: string, sets: string[], seed: number, variant: Variant, label: string): string[] {
  const shared = loadRunConfig(path, [...sets, `trainer.seed=${seed}`]);
  const overrides = variantOverrides(variant, shared.algorithm.gamma);
  const divergence = warmStartDivergence(shared, loadRunConfig(path, [...sets, ...overrides, `trainer.seed=${seed}`]));
  if (divergence) throw new BenchArgumentError(`variant ${label} changes ${divergence} beyond algorithm.*, so it cannot share the warm start; set that key with --set for every variant instead`);
  return overrides;
}

export interface Warm {
  trained: TrainedRun;
  result: HeldOut;
}

/** One (config, seed): its shared warm start's overrides and its variants. */
export interface SeedPlan {
  name: string;
  path: string;
  seed: number;
  own: RunConfig;
  warmName: string | null;
  /**
   * Demonstrations and then expert iteration (`expert_iteration.rounds`): the shared warm start is
   * the demonstrations' alone, and each variant runs expert iteration from its policy before RL,
   * so the gain counts what expert iteration learned from the reward. With a warm start of the
   * format only, expert iteration stays in the warm start (what it learns is everything).
   */
  iteratesAfterWarm: boolean;
  warm: Warm | null;
}

export interface VariantPlan {
  plan: SeedPlan;
  variant: Variant;
  estimator: string;
  shaping: string;
  runName: string;
  /** The variant's own overrides, and the `--set`s and seed every run of it shares. */
  picked: string[];
  sets: string[];
  /** Its run's overrides: of the fork of the warm start, or of a run from scratch. */
  overrides: string[];
  row: string | null;
  gain: SuccessGain | null;
  command: string;
}

/**
 * Everything to train, warm starts first: a second bench on the same data folder (its seeds in
 * another order, one a core) then trains the other warm starts while this one trains its own,
 * and each takes the variants the other has not started; a run the other is training is left
 * to it until the end, then waited for and reused.
 */
export function planOf(configs: string[], seeds: number[], variants: Variant[], overrides: string[]): { seedPlans: SeedPlan[]; variantPlans: VariantPlan[] } {
  const seedPlans: SeedPlan[] = [];
  const variantPlans: VariantPlan[] = [];
  for (const name of configs) {
    const path = fileURLToPath(new URL(`../../configs/${name}.yaml`, import.meta.url));
    if (!existsSync(path)) {
      const names = readdirSync(dirname(path)).filter((f) => f.endsWith('.yaml')).map((f) => f.replace(/\.yaml$/, ''));
      throw new BenchArgumentError(`no config configs/${name}.yaml; did you mean ${closestName(name, names)}? (the configs: ${names.join(', ')})`);
    }
    const own = loadRunConfig(path, overrides);
    for (const seed of seeds) {
      const iteratesAfterWarm = hasDemonstrations(own) && own.expert_iteration.rounds > 0;
      const plan: SeedPlan = { name, path, seed, own, warmName: hasWarmStart(own) ? `${name}-warm-start-s${seed}` : null, iteratesAfterWarm, warm: null };
      seedPlans.push(plan);
      for (const variant of variants) {
        const estimator = variant.estimator ?? own.algorithm.adv_estimator;
        const shaping = shapingLabel(variant, own.algorithm.turn_shaping);
        const picked = plannedOverrides(path, overrides, seed, variant, `${estimator}, shaping ${shaping}`);
        const sets = [...overrides, `trainer.seed=${seed}`];
        const runOverrides = plan.warmName ? forkOverrides(sets, picked, own.trainer.total_training_steps) : [...overrides, ...picked, `trainer.seed=${seed}`];
        variantPlans.push({ plan, variant, estimator, shaping, runName: `${name}-${variantName(variant, estimator)}-s${seed}`, picked, sets, overrides: runOverrides, row: null, gain: null, command: '' });
      }
    }
  }
  return { seedPlans, variantPlans };
}

/**
 * Builds each variant's train envs as its run will (one seed is enough: the seed picks rooms,
 * not envs), so that a variant its envs refuse (shaping on an env without a solver) is refused
 * before the first warm start, not an hour later when its fork starts.
 */
export async function checkVariantEnvs(variantPlans: readonly VariantPlan[]): Promise<void> {
  const seen = new Set<string>();
  for (const v of variantPlans) {
    const key = `${v.plan.path}\n${v.picked.join('\n')}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const cfg = loadRunConfig(v.plan.path, [...v.sets, ...v.picked]);
    const resolveSpec = await loadEnvSpecResolver(cfg, ['train'], dirname(v.plan.path));
    new EnvStateManager(cfg, 'train', { resolveSpec });
  }
}
