import { closestName } from '../closest-name';
import { ADVANTAGE_INPUT_TEXT, type AdvantageBatch, type AdvantageEstimator, type EstimatorSettings } from './estimator';
import { BUILT_IN_ESTIMATORS } from './estimators';
import type { AdvantageResult } from './types';

/**
 * Advantage estimators by name (verl's `adv_estimator`). The config check, the trainer (which
 * models to build, how to group episodes, how to compute advantages) and the workbench's forms
 * all ask this registry, so an estimator is declared once: a module in estimators/ and one entry
 * in its list, or `registerEstimator` from your own code before the run starts.
 */
const registry = new Map<string, AdvantageEstimator>();
for (const estimator of BUILT_IN_ESTIMATORS) registerEstimator(estimator);

export function registerEstimator(estimator: AdvantageEstimator): void {
  if (!/^[a-z][a-z0-9_]*$/.test(estimator.name)) {
    throw new RangeError(`an estimator's name is lower-case letters, digits and underscores (a config value), not '${estimator.name}'`);
  }
  const known = registry.get(estimator.name);
  if (known !== undefined && known !== estimator) throw new RangeError(`an advantage estimator named '${estimator.name}' is already registered`);
  registry.set(estimator.name, estimator);
}

/** The registered names, built-in ones first, in registration order. */
export function estimatorNames(): string[] {
  return [...registry.keys()];
}

export function isEstimatorName(name: string): boolean {
  return registry.has(name);
}

/** The estimator `name` picks; an unknown name throws naming the closest registered one. */
export function estimatorNamed(name: string): AdvantageEstimator {
  const estimator = registry.get(name);
  if (estimator !== undefined) return estimator;
  const names = estimatorNames();
  throw new RangeError(`unknown adv_estimator '${name}'; choose one of ${names.join(', ')} (did you mean '${closestName(name, names)}'?)`);
}

/** An estimator that reads critic values makes the run train a critic. */
export function needsCritic(name: string): boolean {
  return estimatorNamed(name).reads.includes('values');
}

/** An estimator that judges turns by their own rewards needs each turn's reward on that turn. */
export function needsTurnRewards(name: string): boolean {
  return estimatorNamed(name).rewardsPerTurn === true;
}

/** An estimator that compares episodes within groups needs the rollout's group ids. */
export function needsGroups(name: string): boolean {
  return estimatorNamed(name).reads.includes('groupIds');
}

/**
 * Advantages and returns (value targets) with the estimator the settings name, after checking
 * the batch holds every input it reads.
 */
export function computeAdvantages(batch: AdvantageBatch, settings: EstimatorSettings & { adv_estimator: string }): AdvantageResult {
  const estimator = estimatorNamed(settings.adv_estimator);
  for (const input of estimator.reads) {
    if (batch[input] === undefined) {
      const critic = input === 'values' ? '; pick an estimator without a critic, or give the run one' : '';
      throw new RangeError(`adv_estimator '${estimator.name}' needs ${ADVANTAGE_INPUT_TEXT[input]}; pass ${input}${critic}`);
    }
  }
  return estimator.compute(batch as Parameters<AdvantageEstimator['compute']>[0], settings);
}
