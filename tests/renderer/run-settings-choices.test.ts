import { describe, expect, it } from 'vitest';
import { estimatorNames } from '../../trainer-core/algo/estimator-registry';
import { RunConfigSchema } from '../../trainer-core/config';
import { BACKEND_CHOICES, ESTIMATOR_CHOICES } from '../../renderer/src/stores/run-settings';

describe("the run form's choices", () => {
  it('offer every built-in advantage estimator the trainer registers, gigpo included', () => {
    expect([...ESTIMATOR_CHOICES]).toEqual(estimatorNames());
    expect(ESTIMATOR_CHOICES).toContain('gigpo');
  });

  it('offer exactly the backends the config accepts', () => {
    const backend = RunConfigSchema.shape.trainer.shape.backend;
    for (const choice of BACKEND_CHOICES) expect(backend.safeParse(choice).success, choice).toBe(true);
    expect(backend.safeParse('metal').success).toBe(false);
    expect([...BACKEND_CHOICES]).toEqual(backend.options);
  });
});

describe("a fork's overrides", () => {
  it("always carry the total the form shows: the fork starts from the checkpoint's config, whose total was the run's then", async () => {
    const { forkOverrides, settingsFromConfig } = await import('../../renderer/src/stores/run-settings');
    // Run continued from 12 to 20 iterations; the fork from its checkpoint at 12 keeps 20 and changes the rate.
    const base = settingsFromConfig({ trainer: { total_training_steps: 20 }, actor_rollout_ref: { actor: { optim: { lr: 0.001 } } } });
    const overrides = forkOverrides({ ...base, learningRate: '0.0005', extra: '' }, base);
    expect(overrides).toContain('trainer.total_training_steps=20');
    expect(overrides).toContain('actor_rollout_ref.actor.optim.lr=0.0005');
    expect(overrides.filter((o) => !o.startsWith('trainer.total_training_steps=') && !o.includes('optim.lr='))).toEqual([]);
  });
});
