/**
 * Controllers for the KL coefficient of the in-reward penalty (verl `kl_ctrl`). Their state is a
 * plain object so checkpoints can save it and a resumed run continues with the same beta.
 */
export type KlControllerState =
  | { type: 'fixed'; value: number }
  | { type: 'adaptive'; value: number; target: number; horizon: number };

export interface KlController {
  readonly value: number;
  /** Feed the batch's mean KL and the number of sequences it came from. */
  update(currentKl: number, nSteps: number): void;
  state(): KlControllerState;
}

function checkCoef(value: number): void {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`kl_coef must be a finite number >= 0, got ${value}`);
}

function checkObservation(currentKl: number, nSteps: number): void {
  if (!Number.isFinite(currentKl)) {
    throw new RangeError(`the measured KL is ${currentKl}; check the policy and reference log-probs for NaN or infinity`);
  }
  if (!Number.isInteger(nSteps) || nSteps < 0) throw new RangeError(`nSteps must be a non-negative integer, got ${nSteps}`);
}

export class FixedKlController implements KlController {
  constructor(readonly value: number) {
    checkCoef(value);
  }

  update(currentKl: number, nSteps: number): void {
    checkObservation(currentKl, nSteps);
  }

  state(): KlControllerState {
    return { type: 'fixed', value: this.value };
  }
}

/**
 * Ziegler et al.'s proportional controller: beta moves toward the value that keeps the KL at
 * `target`, by at most 20% per horizon's worth of samples.
 */
export class AdaptiveKlController implements KlController {
  private current: number;

  constructor(
    initValue: number,
    readonly target: number,
    readonly horizon: number,
  ) {
    checkCoef(initValue);
    if (!Number.isFinite(target) || target <= 0) throw new RangeError(`target_kl must be > 0, got ${target}`);
    if (!Number.isFinite(horizon) || horizon <= 0) throw new RangeError(`kl horizon must be > 0, got ${horizon}`);
    this.current = initValue;
  }

  get value(): number {
    return this.current;
  }

  update(currentKl: number, nSteps: number): void {
    checkObservation(currentKl, nSteps);
    const error = Math.min(0.2, Math.max(-0.2, currentKl / this.target - 1));
    this.current *= 1 + (error * nSteps) / this.horizon;
  }

  state(): KlControllerState {
    return { type: 'adaptive', value: this.current, target: this.target, horizon: this.horizon };
  }
}

export interface KlControllerConfig {
  /** Default 'fixed'. */
  type?: 'fixed' | 'adaptive';
  /** Default 0.001. */
  klCoef?: number;
  /** Default 0.1. */
  targetKl?: number;
  /** Default 10000. */
  horizon?: number;
}

export function createKlController(config: KlControllerConfig = {}): KlController {
  const { type = 'fixed', klCoef = 0.001, targetKl = 0.1, horizon = 10000 } = config;
  if (type === 'fixed') return new FixedKlController(klCoef);
  if (type === 'adaptive') return new AdaptiveKlController(klCoef, targetKl, horizon);
  throw new RangeError(`unknown kl_ctrl type '${String(type)}'; use 'fixed' or 'adaptive'`);
}

export function restoreKlController(state: KlControllerState): KlController {
  if (state.type === 'fixed') return new FixedKlController(state.value);
  if (state.type === 'adaptive') return new AdaptiveKlController(state.value, state.target, state.horizon);
  throw new RangeError(`cannot restore a KL controller of type '${String((state as { type: unknown }).type)}'`);
}
