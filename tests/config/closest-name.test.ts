// "Did you mean" hints (trainer-core/closest-name.ts): a name misremembered in case or in `-`
// against `_` gets its own spelling suggested, not the name fewest edits away (`GRPO` was met
// with "did you mean `gae`").
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closestName, loadRunConfigWithSource } from '../../trainer-core';
import { repoRoot } from '../helpers/turnlab-cli';

describe('closestName', () => {
  it('prefers the same name in another case or with - for _, then the fewest edits', () => {
    const estimators = ['gae', 'grpo', 'gigpo', 'reinforce_plus_plus', 'reinforce_plus_plus_baseline', 'rloo'];
    expect(closestName('GRPO', estimators)).toBe('grpo');
    expect(closestName('GiGPO', estimators)).toBe('gigpo');
    expect(closestName('reinforce-plus-plus', estimators)).toBe('reinforce_plus_plus');
    expect(closestName('gigop', estimators)).toBe('gigpo');
    expect(closestName('RLOO', estimators)).toBe('rloo');
    expect(closestName('x', [])).toBeUndefined();
  });

  it('names the right estimator and key in a config error', () => {
    const bandit = join(repoRoot, 'configs/bandit.yaml');
    expect(() => loadRunConfigWithSource(bandit, ['algorithm.adv_estimator=GRPO'])).toThrow(/got the string "GRPO"; did you mean `grpo`\?/);
    expect(() => loadRunConfigWithSource(bandit, ['trainer.Total_Training_Steps=3'])).toThrow(/did you mean `trainer.total_training_steps`\?/);
  });
});
