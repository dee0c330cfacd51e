/**
 * Collapse detection (RAGEN's "echo trap"): the share of well-formed answers in the training
 * rollouts falls far below the level the run had already reached. Pure: the trainer feeds one
 * value per iteration and keeps the returned state; the detector decides nothing else.
 *
 * Rule, chosen so that sampling noise on a small batch does not fire it:
 * - the earlier level is the best mean over up to `window` consecutive iterations seen so far;
 * - the current level is the mean of the latest `window` values;
 * - a collapse starts when the earlier level is at least `minEarlier` and the current level has
 *   fallen below `(1 - drop)` of it, and ends when the current level is back above
 *   `(1 - drop / 2)` of it (hysteresis, so a run hovering at the threshold warns once).
 */

export const COLLAPSE_METRIC = 'rollout/collapse';
export const WELL_FORMED_METRIC = 'rollout/well_formed_share';

export interface CollapseOptions {
  window: number;
  drop: number;
  minEarlier: number;
}

export const DEFAULT_COLLAPSE_OPTIONS: CollapseOptions = { window: 2, drop: 0.5, minEarlier: 0.5 };

export interface CollapseState {
  recent: number[];
  earlier: number;
  collapsed: boolean;
}

export interface CollapseStep {
  state: CollapseState;
  /** The run is in a collapse now. */
  collapsed: boolean;
  /** This iteration started a collapse episode (warn once). */
  started: boolean;
  current: number;
  earlier: number;
}

export function initialCollapseState(): CollapseState {
  return { recent: [], earlier: 0, collapsed: false };
}

export function stepCollapse(state: CollapseState, value: number, options: CollapseOptions = DEFAULT_COLLAPSE_OPTIONS): CollapseStep {
  const recent = [...state.recent, value].slice(-options.window);
  const current = recent.reduce((a, b) => a + b, 0) / recent.length;
  // The earlier level is compared before it takes in this iteration, so a fall is measured
  // against what the run had reached, not against itself.
  const earlier = state.earlier;
  let collapsed = state.collapsed;
  if (!collapsed && earlier >= options.minEarlier && current < (1 - options.drop) * earlier) collapsed = true;
  else if (collapsed && current >= (1 - options.drop / 2) * earlier) collapsed = false;
  // A partial window counts too: a run that falls at its second iteration (Bandit seed 1 at lr
  // 1e-3: 0.97, then 0) must not have the fall averaged into its earlier level.
  const next: CollapseState = { recent, earlier: collapsed ? earlier : Math.max(earlier, current), collapsed };
  return { state: next, collapsed, started: collapsed && !state.collapsed, current, earlier };
}

/** Runs the detector over a whole series: the iterations (0-based indices) where a collapse starts. */
export function collapseStarts(series: readonly number[], options: CollapseOptions = DEFAULT_COLLAPSE_OPTIONS): number[] {
  let state = initialCollapseState();
  const starts: number[] = [];
  series.forEach((value, i) => {
    const step = stepCollapse(state, value, options);
    state = step.state;
    if (step.started) starts.push(i);
  });
  return starts;
}

/** The well-formed share of a training iteration: the mean over tags of `train/<tag>/action_is_valid`. */
export function wellFormedShare(metrics: Record<string, number>): number | null {
  const values = Object.entries(metrics)
    .filter(([name]) => /^train\/[^/]+\/action_is_valid$/.test(name))
    .map(([, value]) => value);
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

export function collapseWarning(step: CollapseStep, iteration: number): string {
  return (
    `warning: collapse at iteration ${iteration}: ${WELL_FORMED_METRIC} is ${step.current.toFixed(2)}, down from ${step.earlier.toFixed(2)} ` +
    `(RAGEN's echo trap; ${COLLAPSE_METRIC} = 1). Try a lower actor lr, a KL loss (actor_rollout_ref.actor.use_kl_loss), ` +
    `a stronger format penalty, or fork from a checkpoint before the collapse`
  );
}
