// algorithm.turn_shaping needs the env's solver: an env without one is refused before the run exists.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import { repoRoot, runTurnlab, runTurnlabInProcess } from '../helpers/turnlab-cli';

const work = mkdtempSync(join(tmpdir(), 'turnlab-turn-shaping-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('turnlab train with algorithm.turn_shaping', () => {
  it('refuses an env without a solver in one line naming the key, exit code 2, and stores no run', () => {
    const config = join(work, 'coin.yaml');
    writeFileSync(
      config,
      [
        'algorithm: {adv_estimator: grpo, turn_shaping: {coef: 0.1, gamma: 0.95}}',
        'es_manager:',
        '  train: {env_groups: 1, group_size: 2, env_configs: {tags: [Coin], n_groups: [1]}}',
        '  val: {env_groups: 1, group_size: 1, env_configs: {tags: [Coin], n_groups: [1]}}',
        'custom_envs:',
        `  Coin: {env_type: custom, module: ${join(repoRoot, 'tests/envs/fixtures/class-env.ts')}, max_actions_per_traj: 1}`,
        '',
      ].join('\n'),
    );
    const dataDir = join(work, 'data');
    const result = runTurnlab(['train', '--config', config], { dataDir });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
    const lines = result.stderr.trim().split('\n').filter((line) => line.startsWith('turnlab:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/`algorithm.turn_shaping` shapes rewards by the solver's distance to the goal, but env `Coin` .* has no solver .*set algorithm.turn_shaping to null/);
    if (existsSync(join(dataDir, 'turnlab.sqlite'))) {
      const store = openStore(dataDir);
      expect(store.runs.list()).toEqual([]);
      store.close();
    }
  }, 120_000);

  it("refuses a custom env whose distanceToGoal() gives a bad value before the run exists (the env's own distance, not solve()'s)", async () => {
    const fixtures = join(repoRoot, 'tests/envs/fixtures');
    const dataDir = join(work, 'data-distance');
    const result = await runTurnlabInProcess(
      [
        'train', '--config', join(fixtures, 'faulty-train.yaml'),
        '--set', `custom_envs.Faulty.module=${join(fixtures, 'solver-methods.ts')}`,
        '--set', 'custom_envs.Faulty.env_config.fault=distance-nan',
        '--set', 'algorithm.turn_shaping.coef=0.1',
        '--set', 'warm_start.mode=none',
      ],
      { dataDir },
    );
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toMatch(/^turnlab: es_manager\.train: the environments cannot start an episode: custom environment .*solver-methods\.ts: distanceToGoal\(\) returned number NaN; expected null or a number of moves, 0 or more \(episode seed 0\)/);
    expect(JSON.parse((await runTurnlabInProcess(['runs', '--json'], { dataDir })).stdout)).toEqual([]);
  }, 120_000);
});
