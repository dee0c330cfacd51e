// The optimal policy's success on the validation seeds is measured within the budget the run's
// policy has: the env's actions, or fewer where the turns and actions a turn allow fewer.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { optimalSuccessByTag } from '../../trainer-core/train/validation';
import { repoRoot } from '../helpers/turnlab-cli';

const lake = (overrides: string[]) =>
  loadRunConfig(join(repoRoot, 'configs/frozenlake.yaml'), ['es_manager.val.env_groups=64', 'es_manager.val.env_configs.n_groups=[64]', ...overrides]);

describe('val/<tag>/optimal_success', () => {
  it("is the solver's within the env's budget when the turns allow all of it", () => {
    const full = optimalSuccessByTag(lake([])).FrozenLake;
    expect(full).toBeGreaterThan(0.3);
    expect(optimalSuccessByTag(lake(['agent_proxy.max_turn=20'])).FrozenLake).toBe(full);
  });

  it('shrinks with the turns a run allows (two turns of one move are two moves)', () => {
    const full = optimalSuccessByTag(lake([])).FrozenLake;
    const two = optimalSuccessByTag(lake(['agent_proxy.max_turn=2'])).FrozenLake;
    expect(two).toBeLessThan(full);
    // Two turns of five moves are the env's ten again.
    expect(optimalSuccessByTag(lake(['agent_proxy.max_turn=2', 'agent_proxy.max_actions_per_turn=5'])).FrozenLake).toBe(full);
  });
});
