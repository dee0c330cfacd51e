import type { AdvantageEstimator } from '../estimator';
import { gae } from './gae';
import { gigpo } from './gigpo';
import { grpo } from './grpo';
import { reinforcePlusPlus, reinforcePlusPlusBaseline } from './reinforce-plus-plus';
import { rloo } from './rloo';

/**
 * The built-in estimators, one module each: a new one is a file in this folder and one entry
 * here. Pure (no tensors, no Node), so the workbench's forms read the names from here too.
 */
export const BUILT_IN_ESTIMATORS: readonly AdvantageEstimator[] = [gae, grpo, gigpo, reinforcePlusPlus, reinforcePlusPlusBaseline, rloo];

/** The built-in estimators' names, in the registry's order. */
export const BUILT_IN_ESTIMATOR_NAMES: readonly string[] = BUILT_IN_ESTIMATORS.map((e) => e.name);
