import { describe, expect, it } from 'vitest';
import { AdaptiveKlController, createKlController, restoreKlController } from '../../trainer-core/algo/kl-controller';

describe('KL controllers', () => {
  it('fixed keeps beta whatever the KL (verl default 0.001)', () => {
    const ctrl = createKlController();
    ctrl.update(5, 256);
    ctrl.update(0, 256);
    expect(ctrl.value).toBe(0.001);
    expect(ctrl.state()).toEqual({ type: 'fixed', value: 0.001 });
  });

  it('adaptive moves beta by at most 20% per horizon, proportionally to n_steps', () => {
    const ctrl = createKlController({ type: 'adaptive', klCoef: 0.001 }); // target .1, horizon 10000
    ctrl.update(0.15, 256); // error .5 clipped to .2 -> x (1 + .2 * 256 / 10000) = 1.00512
    expect(ctrl.value).toBeCloseTo(0.001 * 1.00512, 15);
    ctrl.update(0.05, 256); // error -.5 clipped to -.2 -> x .99488
    expect(ctrl.value).toBeCloseTo(0.001 * 1.00512 * 0.99488, 15);
    ctrl.update(0.11, 100); // error .1 -> x 1.001
    expect(ctrl.value).toBeCloseTo(0.001 * 1.00512 * 0.99488 * 1.001, 15);
  });

  it('saves and restores its state so a resumed run continues identically', () => {
    const a = new AdaptiveKlController(0.01, 0.05, 500);
    a.update(0.2, 64);
    const saved = JSON.parse(JSON.stringify(a.state()));
    const b = restoreKlController(saved);
    expect(b.state()).toEqual(a.state());
    a.update(0.01, 32);
    b.update(0.01, 32);
    expect(b.value).toBe(a.value);
    expect(restoreKlController({ type: 'fixed', value: 0.3 }).value).toBe(0.3);
  });

  it('rejects bad settings and a non-finite KL', () => {
    expect(() => createKlController({ klCoef: -1 })).toThrow(/kl_coef must be/);
    expect(() => createKlController({ type: 'adaptive', targetKl: 0 })).toThrow(/target_kl must be > 0/);
    expect(() => createKlController({ type: 'pid' as 'fixed' })).toThrow(/unknown kl_ctrl type 'pid'/);
    expect(() => createKlController({ type: 'adaptive' }).update(Number.NaN, 8)).toThrow(/measured KL is NaN/);
  });
});
