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
