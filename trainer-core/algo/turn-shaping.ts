/**
 * Potential-based reward shaping per turn (Ng, Harada and Russell, 1999): turn t's reward gains
 * `coef * (gamma * phi(s_t+1) - phi(s_t))`, where s_t is the state turn t was played from. With
 * phi = -(the solver's distance to the goal) a turn that brings the goal nearer earns a bonus and
 * one that walks away or wedges a box pays.
 *
 * What the episode's end is worth decides what the shaping can change:
 * - `absorbing` (the default): the state after the last turn counts as phi = 0 (Grzes, 2017). The
 *   gamma-discounted sum of the bonuses telescopes to `-coef * phi(s_0)`, the same for every episode
 *   from one start state, so the ranking of policies by their discounted return does not change.
 *   By the same token, with gamma 1 an estimator that compares the undiscounted sums of episodes
 *   from one start (GRPO, RLOO) sees exactly what it saw without it, and so do GiGPO's step groups
 *   (turns from one state) when its own gamma is the shaping's; with gamma < 1 the undiscounted
 *   sum also holds `coef * (1 - gamma) * (the distances along the way)`, a charge for time spent
 *   far from the goal. The shaping always reaches the estimators that bootstrap from a critic
 *   (GAE, bi-level GAE) or credit a turn by its own return-to-go (REINFORCE++).
 * - `bootstrap`: the turn budget running out is a cut, not an end (Pardo et al., 2018), so the
 *   last state keeps its own potential (a solved room 0, a fall or a dead end the unreachable
 *   distance). An episode that ends nearer the goal then scores higher, which every estimator sees;
 *   the ranking changes only among episodes that miss the goal.
 */

export const TURN_SHAPING_ENDS = ['absorbing', 'bootstrap'] as const;
export type TurnShapingEnd = (typeof TURN_SHAPING_ENDS)[number];

export interface TurnShaping {
  coef: number;
  gamma: number;
  /** Default absorbing. */
  end?: TurnShapingEnd;
}

/**
 * The shaping bonus of each turn. `potentials` holds phi of the state each turn was played from
 * and then of the state after the last turn: one more entry than turns played.
 */
export function turnShapingBonuses(potentials: readonly number[], shaping: TurnShaping): number[] {
  const { coef, gamma, end = 'absorbing' } = shaping;
  if (!(gamma >= 0 && gamma <= 1)) throw new RangeError(`turn_shaping.gamma must lie in [0, 1] (got ${gamma})`);
  if (potentials.length === 0) throw new RangeError('turnShapingBonuses needs the potential of the state after the last turn as well');
  const turns = potentials.length - 1;
  return potentials.slice(0, turns).map((phi, t) => {
    const next = t + 1 === turns && end === 'absorbing' ? 0 : potentials[t + 1];
    return coef * (gamma * next - phi);
  });
}

/**
 * phi = -distance: moves to the goal by the solver, `unreachable` where it finds none within the
 * budget (a box wedged in a corner, a player in a hole). Distances are capped at `unreachable`
 * so that one turn's bonus stays within `coef * unreachable`.
 */
export function distancePotential(distance: number | null, unreachable: number): number {
  return -(distance === null ? unreachable : Math.min(distance, unreachable));
}

/** Sum of `rewards[t] * gamma^t`: the return whose ranking the absorbing shaping keeps. */
export function discountedReturn(rewards: readonly number[], gamma: number): number {
  return rewards.reduceRight((sum, r) => r + gamma * sum, 0);
}
