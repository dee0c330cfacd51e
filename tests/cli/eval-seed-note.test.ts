// `eval --seed S` sets the evaluation's start states, not its sampling: a seed inside the run's
// train seeds plays boards the policy trained on, which the evaluation says.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluationSeedNote, loadRunConfig } from '../../trainer-core';
import { repoRoot, runTurnlabInProcess, TINY_TRAIN } from '../helpers/turnlab-cli';

const dataDir = mkdtempSync(join(tmpdir(), 'turnlab-eval-seed-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// Bandit trains 4 groups a rollout from seed 0: by iteration 10 it has played seeds 0-39.
const played = (overrides: string[]) => loadRunConfig(join(repoRoot, 'configs/bandit.yaml'), ['es_manager.val.env_groups=16', 'es_manager.val.env_configs.n_groups=[16]', ...overrides]);

describe('an evaluation on train seeds', () => {
  it('counts the boards the run had trained on by the checkpoint, and names seeds past the whole run', () => {
    expect(evaluationSeedNote(played(['es_manager.val.start_seed=30']), 10)).toBe(
      'note: 10 of the 16 start seeds this evaluation played (30 on) are seeds the run trained on by iteration 10 (es_manager.train.start_seed 0 on, 4 a rollout), ' +
        'so its success partly measures boards the policy has seen; --seed chooses the boards, not the sampling: give one from 240 on for boards the run never trains on',
    );
    expect(evaluationSeedNote(played(['es_manager.val.start_seed=40']), 10)).toBeNull();
    expect(evaluationSeedNote(played([]), 60)).toBeNull();
    expect(evaluationSeedNote(played(['es_manager.train.seeds=[3,7,500]', 'es_manager.val.start_seed=0']), 1)).toMatch(/^note: 2 of the 16 .*\(es_manager\.train\.seeds\).* from 501 on/);
  });

  it('is said by turnlab eval --seed, not by an evaluation on the validation seeds', async () => {
    expect((await runTurnlabInProcess(['train', '--config', 'bandit', ...TINY_TRAIN, '--set', 'trainer.total_training_steps=2', '--set', 'trainer.test_freq=0'], { dataDir })).code).toBe(0);
    const inside = await runTurnlabInProcess(['eval', '1', '--episodes', '4', '--seed', '6'], { dataDir });
    expect(inside.code).toBe(0);
    expect(inside.stderr).toContain('note: 2 of the 4 start seeds this evaluation played (6 on) are seeds the run trained on by iteration 2');
    const held = await runTurnlabInProcess(['eval', '1', '--episodes', '4'], { dataDir });
    expect(held.code).toBe(0);
    expect(held.stderr).not.toContain('start seeds this evaluation played');
  }, 120_000);
});
