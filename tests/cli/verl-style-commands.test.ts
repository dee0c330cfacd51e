// Commands as a researcher used to verl's and RAGEN's scripts types them. Overrides after the
// command (Hydra's key=value) for train, resume and eval: the same as --set, applied after it; what
// Hydra has and TurnLab does not (deleting a key) and what is no override (a stray word) are
// refused before anything is stored. A config by its name (`--config bandit`, as RAGEN's
// `--config-name`) from outside the checkout is the shipped one, and so is the first argument
// without --config (`turnlab train configs/bandit.yaml key=value`). A sweep reads them as Hydra's
// multirun: `key=v1,v2` is an axis of the grid, a list `[4]` a value.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runTurnlabInProcess, TINY_OVERRIDES } from '../helpers/turnlab-cli';

const dataDir = mkdtempSync(join(tmpdir(), 'turnlab-cli-hydra-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const turnlab = (...args: string[]) => runTurnlabInProcess(args, { dataDir });
const CONFIG = join(repoRoot, 'configs/bandit.yaml');

describe('Hydra-style overrides', () => {
  it('trains and resumes with key=value after the command, later ones winning over --set', async () => {
    const trained = await turnlab('train', '--config', CONFIG, '--set', 'trainer.total_training_steps=5', ...TINY_OVERRIDES, 'trainer.total_training_steps=2', '+trainer.experiment_name=from-hydra');
    expect(trained.stderr).not.toMatch(/error/i);
    expect(trained.code).toBe(0);
    expect(trained.stdout).toMatch(/run 1 \(from-hydra\) completed at iteration 2/);

    const resumed = await turnlab('resume', 'from-hydra', '++trainer.total_training_steps=3');
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/run 1 \(from-hydra\) completed at iteration 3/);
    const runs = JSON.parse((await turnlab('runs', '--json')).stdout) as Array<{ name: string; iterations: number }>;
    expect(runs.map((r) => [r.name, r.iterations])).toEqual([['from-hydra', 3]]);
  });

  it('evaluates with key=value after the checkpoint, stored with the evaluation, and says where the checkpoint goes', async () => {
    const greedy = await turnlab('eval', 'from-hydra', '--episodes', '4', 'actor_rollout_ref.rollout.val_kwargs.do_sample=false', '--json');
    expect(greedy.code).toBe(0);
    expect(greedy.stderr).not.toMatch(/^note:/m);
    // Keys only training reads are said to change nothing, the train split's sampling pointing to validation's.
    const sampled = await turnlab('eval', 'from-hydra', '--episodes', '4', '--json', 'algorithm.adv_estimator=gae', 'actor_rollout_ref.rollout.temperature=0.1');
    expect(sampled.stderr).toContain('note: algorithm.adv_estimator changes nothing in an evaluation: it sets how the policy is updated\n');
    expect(sampled.stderr).toContain(
      'note: actor_rollout_ref.rollout.temperature changes nothing in an evaluation: validation samples with `actor_rollout_ref.rollout.val_kwargs.temperature`\n',
    );
    const ids = [greedy, sampled].map((r) => (JSON.parse(r.stdout) as { evaluationId: number }).evaluationId);
    const { openStore } = await import('../../main/store/db');
    const store = openStore(dataDir);
    try {
      expect(ids.map((id) => store.evaluations.get(id)?.overrides)).toEqual([
        ['actor_rollout_ref.rollout.val_kwargs.do_sample=false'],
        ['algorithm.adv_estimator=gae', 'actor_rollout_ref.rollout.temperature=0.1'],
      ]);
    } finally {
      store.close();
    }
    const before = await turnlab('eval', 'actor_rollout_ref.rollout.val_kwargs.do_sample=false');
    expect(before.code).toBe(2);
    expect(before.stderr.trim()).toBe(
      'turnlab: give a checkpoint (run id or name, ckpt:<id>, a folder) or --model <folder> --config <file>, then the overrides: turnlab eval <run> actor_rollout_ref.rollout.val_kwargs.do_sample=false',
    );
  });

  it('refuses a misspelt key, a deletion and a stray word with one line each, storing nothing', async () => {
    const before = (await turnlab('runs', '--json')).stdout;
    const misspelt = await turnlab('train', '--config', CONFIG, 'trainer.totl_training_steps=2');
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr.trim()).toBe('turnlab: --set trainer.totl_training_steps=2: unknown key `trainer.totl_training_steps`; did you mean `trainer.total_training_steps`?');
    const deleted = await turnlab('train', '--config', CONFIG, '~trainer.seed');
    expect(deleted.code).toBe(2);
    expect(deleted.stderr).toMatch(/^turnlab: --set ~trainer\.seed: deleting a key \(Hydra's ~key\) is not supported; set it to another value \(trainer\.seed=\.\.\.\)/);
    const stray = await turnlab('resume', '1', 'bandit.yaml');
    expect(stray.code).toBe(2);
    expect(stray.stderr.trim()).toBe("turnlab: 'bandit.yaml' is not an override: write key=value after the command, e.g. trainer.total_training_steps=50 (or --set key=value)");
    for (const refused of [misspelt, deleted, stray]) expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect((await turnlab('runs', '--json')).stdout).toBe(before);
  });
});

describe('a config by name', () => {
  it('trains on the shipped config a name gives, from a folder without configs/, and says which file it read', async () => {
    const cwd = process.cwd();
    process.chdir(dataDir);
    try {
      const trained = await turnlab('train', '--config', 'bandit', ...TINY_OVERRIDES, 'trainer.total_training_steps=1', 'trainer.experiment_name=by-name');
      expect(trained.code).toBe(0);
      expect(trained.stderr).toContain(`--config bandit: the shipped ${CONFIG}\n`);
      expect(trained.stdout).toMatch(/\(by-name\) completed at iteration 1/);
      const misspelt = await turnlab('train', '--config', 'configs/sokobn.yaml');
      expect(misspelt.code).toBe(2);
      expect(misspelt.stderr).toMatch(/argument 'configs\/sokobn\.yaml' is invalid\. no file .*sokobn\.yaml, and no shipped config of that name \(did you mean sokoban\?\); shipped: bandit, base, countdown, .*sokoban-rl\n$/);

      // The config as the first argument, as verl's and RAGEN's scripts are often started.
      const positional = await turnlab('train', 'bandit', ...TINY_OVERRIDES, 'trainer.total_training_steps=1', 'trainer.experiment_name=positional');
      expect(positional.code).toBe(0);
      expect(positional.stderr).toContain(`bandit: the shipped ${CONFIG}\n`);
      expect(positional.stdout).toMatch(/\(positional\) completed at iteration 1/);
      const typo = await turnlab('train', 'configs/sokobn.yaml', 'trainer.total_training_steps=1');
      expect(typo.stderr).toMatch(/^turnlab: configs\/sokobn\.yaml: no file .*sokobn\.yaml, and no shipped config of that name \(did you mean sokoban\?\)/);
      expect(typo.code).toBe(2);
      const none = await turnlab('train', 'trainer.total_training_steps=1');
      expect(none.stderr).toBe('turnlab: train needs a run config: --config <file> (a shipped one by name: --config bandit), or the file first: turnlab train configs/bandit.yaml\n');
      expect(none.code).toBe(2);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe("a sweep's arguments as Hydra's multirun", () => {
  it('sweeps key=v1,v2 as an axis and sets key=value (a list too) on every run', async () => {
    const sweepDir = mkdtempSync(join(tmpdir(), 'turnlab-cli-multirun-'));
    try {
      // TINY_OVERRIDES holds lists (`n_groups=[4]`): values, not axes.
      const swept = await runTurnlabInProcess(
        ['sweep', CONFIG, '--seeds', '1', '--name', 'mr', ...TINY_OVERRIDES, 'trainer.total_training_steps=1', 'actor_rollout_ref.actor.optim.lr=1e-3,2e-3'],
        { dataDir: sweepDir },
      );
      expect(swept.stderr).not.toMatch(/turnlab: /);
      expect(swept.code).toBe(0);
      const runs = JSON.parse((await runTurnlabInProcess(['runs', '--json'], { dataDir: sweepDir })).stdout) as Array<{ name: string; iterations: number }>;
      expect(runs.map((r) => r.name).sort()).toEqual(['mr-lr=1e-3-s0', 'mr-lr=2e-3-s0']);
      expect(runs.map((r) => r.iterations)).toEqual([1, 1]);
    } finally {
      rmSync(sweepDir, { recursive: true, force: true });
    }
  });
});

