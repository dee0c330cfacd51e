import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import benchLearning from '../../bench/learning';
import { CLAIMS_DIR, VARIANT_TAG, WARM_START_TAG, forkOverrides, forkedVariant, sharedWarmStart, warmStartOverrides } from '../../bench/lib/shared-warm-start';
import { hashConfig } from '../../main/store/repositories/runs';
import { loadRunConfig, withAbsoluteModulePaths } from '../../trainer-core';
import { trainFromConfigFile } from '../../main/services/training';
import { openStore } from '../../main/store/db';

const repo = resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(join(tmpdir(), 'turnlab-bench-shared-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

// FrozenLake shrunk to seconds: a 3-step expert warm start, one RL iteration of 2 x 4 episodes,
// validation on 8 rooms, and 8 held-out episodes.
const TINY = [
  'model.n_layer=1', 'model.n_head=2', 'model.d_model=16', 'model.d_ff=32', 'model.context_length=128',
  'trainer.workers=1', 'trainer.total_training_steps=1', 'trainer.test_freq=1', 'trainer.save_freq=1',
  'ppo_mini_batch_size=8', 'micro_batch_size_per_gpu=8',
  'es_manager.train.env_groups=2', 'es_manager.train.group_size=4', 'es_manager.train.env_configs.n_groups=[2]',
  'es_manager.val.env_groups=8', 'es_manager.val.env_configs.n_groups=[8]',
  'warm_start.steps=3', 'warm_start.episodes=64',
];
const ARGS = ['frozenlake', '--seeds', '0', '--episodes', '8', '--data-dir', dataDir, '--estimators', 'bi_level_gae', '--shaping', 'off,0.1', ...TINY.flatMap((s) => ['--set', s])];

async function bench(): Promise<string[]> {
  const printed: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(...parts.join(' ').split('\n')));
  await benchLearning(ARGS);
  vi.restoreAllMocks();
  return printed;
}

/** Every file of a checkpoint but its configs, which name the overrides in a different order. */
function checkpointFiles(folder: string): Record<string, string> {
  const files = readdirSync(folder).filter((f) => !f.startsWith('config') && f !== 'manifest.json');
  return Object.fromEntries(files.map((f) => [f, readFileSync(join(folder, f)).toString('base64')]));
}

describe('npm run bench -- learning with variants', () => {
  it('trains one warm start per seed and forks each variant from it; a second run reuses all of them', async () => {
    const printed = await bench();
    const rows = printed.filter((line) => line.startsWith('| frozenlake |'));
    // Each row once as it finishes and once in the final table; one summary row per variant.
    expect(rows.filter((r) => /^\| frozenlake \| bi_level_gae \| off \| 0 \| \d\.\d{3} \| \d\.\d{3} \| [+-]?\d\.\d{3} ± \d\.\d{3} \| \d\.\d{3} \| \d+ s \| \d+ s \|( {3}run \d+ \(fork of run \d+\).*)?$/.test(r))).toHaveLength(2);
    expect(rows.filter((r) => /^\| frozenlake \| bi_level_gae \| 0\.1 \| 0 \| /.test(r))).toHaveLength(2);
    expect(rows.filter((r) => /^\| frozenlake \| bi_level_gae \| (off|0\.1) \| 1 \| /.test(r))).toHaveLength(2);

    const store = openStore(dataDir);
    const runs = store.runs.allIds().map((id) => store.runs.get(id)!);
    const warm = runs.filter((r) => r.tags.includes(WARM_START_TAG));
    expect(warm.map((r) => r.name)).toEqual(['frozenlake-warm-start-s0']);
    const warmCheckpoint = store.checkpoints.listByRun(warm[0].id).find((c) => c.iteration === 0)!;
    const variants = runs.filter((r) => r.tags.includes(VARIANT_TAG));
    expect(variants.map((r) => r.name).sort()).toEqual(['frozenlake-bi_level_gae-noshaping-s0', 'frozenlake-bi_level_gae-shaping0.1-s0']);
    for (const v of variants) expect([v.parentRunId, v.parentCheckpointId, v.status]).toEqual([warm[0].id, warmCheckpoint.id, 'completed']);
    expect(variants.map((v) => v.config.algorithm?.turn_shaping)).toEqual([null, { coef: 0.1, gamma: 1, end: 'absorbing' }]);
    // The warm start is evaluated once, for both variants' gains.
    expect(store.evaluations.listByRun(warm[0].id).map((e) => e.iteration)).toEqual([0]);
    const shaped = variants[1];
    const forkFolder = resolve(dataDir, store.checkpoints.latest(shaped.id)!.path);
    const warmFolder = resolve(dataDir, warmCheckpoint.path);
    store.close();

    // The fork trains what a run that did its own warm start trains: the same weights, critic,
    // optimizer moments and random streams, byte for byte.
    const freshDir = mkdtempSync(join(tmpdir(), 'turnlab-bench-fresh-'));
    try {
      const freshStore = openStore(freshDir, { create: true });
      const overrides = [...TINY, 'algorithm.adv_estimator=gae', 'algorithm.bi_level_gae=true', 'algorithm.turn_shaping={coef: 0.1, gamma: 1}', 'trainer.seed=0'];
      const { run } = await trainFromConfigFile(freshStore, join(repo, 'configs/frozenlake.yaml'), { overrides });
      const freshFolder = resolve(freshDir, freshStore.checkpoints.latest(run.id)!.path);
      freshStore.close();
      const fork = checkpointFiles(forkFolder);
      expect(Object.keys(fork).sort()).toEqual(expect.arrayContaining(['critic.safetensors', 'policy.safetensors', 'state.json']));
      expect(fork).toEqual(checkpointFiles(freshFolder));
      // Not vacuous: the RL iteration moved the policy away from the warm start's.
      expect(fork['policy.safetensors']).not.toEqual(checkpointFiles(warmFolder)['policy.safetensors']);
    } finally {
      rmSync(freshDir, { recursive: true, force: true });
    }

    const again = await bench();
    expect(again.filter((r) => /^\| frozenlake \| bi_level_gae \| (off|0\.1) \| 0 \| .* \| reused \| reused \|/.test(r))).toHaveLength(4);
    const after = openStore(dataDir);
    expect(after.runs.allIds()).toHaveLength(runs.length);
    after.close();
  }, 300_000);
});

describe('two benches on one data folder', () => {
  it('leave a warm start that another live bench claimed to it, and train one whose bench is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turnlab-bench-twin-'));
    const store = openStore(dir, { create: true });
    try {
      const path = join(repo, 'configs/frozenlake.yaml');
      const overrides = warmStartOverrides(TINY, 0);
      const hash = hashConfig(withAbsoluteModulePaths(loadRunConfig(path, overrides), join(repo, 'configs')));
      const claimFile = join(dir, CLAIMS_DIR, `warm-start-${hash}.pid`);
      mkdirSync(join(dir, CLAIMS_DIR));
      // Our parent process stands for the other bench: alive, and not this process.
      writeFileSync(claimFile, String(process.ppid));
      expect(await sharedWarmStart(store, path, 'mine', overrides, () => {}, 'defer')).toBeNull();
      expect(store.runs.allIds()).toEqual([]);
      writeFileSync(claimFile, String(spawnSync('true').pid));
      const trained = await sharedWarmStart(store, path, 'mine', overrides, () => {}, 'defer');
      expect([trained?.run.name, trained?.checkpoint.iteration]).toEqual(['mine', 0]);
      // The claim goes with the run that took it.
      expect(existsSync(claimFile)).toBe(false);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a variant whose bench was killed', () => {
  it('is carried on from its last checkpoint to the run an uninterrupted one trains', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turnlab-bench-carry-'));
    const store = openStore(dir, { create: true });
    try {
      const path = join(repo, 'configs/frozenlake.yaml');
      const warm = (await sharedWarmStart(store, path, 'warm', warmStartOverrides(TINY, 0), () => {}))!;
      const overrides = forkOverrides(TINY, ['algorithm.adv_estimator=grpo'], 2);
      const whole = (await forkedVariant(store, warm.checkpoint, 'v', overrides, () => {}))!;
      expect(whole.checkpoint.iteration).toBe(2);
      const wholeFiles = checkpointFiles(resolve(dir, whole.checkpoint.path));
      // What a kill between the checkpoints of iterations 1 and 2 leaves: the run still marked
      // running, its owner's process gone, nothing of iteration 2.
      store.runs.truncateAfter(whole.run.id, 1);
      rmSync(resolve(dir, whole.checkpoint.path), { recursive: true, force: true });
      store.runs.update(whole.run.id, { status: 'running', finishedAt: null });
      store.runs.setTrainerProcess(whole.run.id, spawnSync('true').pid!, hostname());

      const logged: string[] = [];
      const carried = (await forkedVariant(store, warm.checkpoint, 'v', overrides, (line) => logged.push(line)))!;
      expect(logged).toContain(`v: carrying on run ${whole.run.id} from its checkpoint at iteration 1`);
      expect([carried.run.id, carried.run.status, carried.checkpoint.iteration]).toEqual([whole.run.id, 'completed', 2]);
      expect(checkpointFiles(resolve(dir, carried.checkpoint.path))).toEqual(wholeFiles);
      // Finished now, it is reused as any finished variant is.
      const again = (await forkedVariant(store, warm.checkpoint, 'v', overrides, () => {}))!;
      expect([again.run.id, again.seconds]).toEqual([whole.run.id, null]);
      expect(store.runs.allIds()).toHaveLength(2);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('a shared warm start whose bench was stopped during it', () => {
  it('is carried on from its warm-start checkpoint to the iter-0 an uninterrupted one keeps', async () => {
    const path = join(repo, 'configs/frozenlake.yaml');
    const overrides = warmStartOverrides([...TINY, 'warm_start.save_freq=1'], 0);
    const dirs = [mkdtempSync(join(tmpdir(), 'turnlab-bench-warm-a-')), mkdtempSync(join(tmpdir(), 'turnlab-bench-warm-b-'))];
    const [whole, split] = dirs.map((dir) => openStore(dir, { create: true }));
    try {
      const uninterrupted = (await sharedWarmStart(whole, path, 'warm', overrides, () => {}))!;
      // What a bench stopped after the warm start's second step leaves: the run stopped, its checkpoint at step 2.
      let runId = 0;
      const stopped = await trainFromConfigFile(split, path, {
        overrides,
        name: 'warm',
        tags: [WARM_START_TAG],
        onRunCreated: (run) => (runId = run.id),
        shouldStop: () => (split.runs.get(runId)?.warmStartProgress?.step ?? 0) >= 2,
      });
      expect(stopped.run.status).toBe('stopped');
      expect(split.checkpoints.listByRun(runId).map((c) => [c.iteration, c.warmStartStep])).toEqual([[0, 2]]);

      const logged: string[] = [];
      const carried = (await sharedWarmStart(split, path, 'warm', overrides, (line) => logged.push(line)))!;
      expect(logged).toContain(`warm: carrying on run ${runId}'s warm start from its checkpoint at step 2`);
      expect([carried.run.id, carried.run.status, carried.checkpoint.iteration, carried.checkpoint.warmStartStep]).toEqual([runId, 'completed', 0, null]);
      expect(checkpointFiles(resolve(dirs[1], carried.checkpoint.path))).toEqual(checkpointFiles(resolve(dirs[0], uninterrupted.checkpoint.path)));
    } finally {
      whole.close();
      split.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('a config with demonstrations and then expert iteration', () => {
  it("shares the demonstrations' warm start alone and runs expert iteration in each variant, so the gain counts it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turnlab-bench-iterate-'));
    const printed: string[] = [];
    const iterate = ['expert_iteration.rounds=1', 'expert_iteration.episodes=8', 'expert_iteration.steps=2', 'expert_iteration.prune_revisits=false'];
    const args = ['frozenlake', '--seeds', '0', '--episodes', '8', '--data-dir', dir, '--estimators', 'grpo', ...[...TINY, ...iterate].flatMap((s) => ['--set', s])];
    try {
      vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(...parts.join(' ').split('\n')));
      await benchLearning(args);
      vi.restoreAllMocks();
      const store = openStore(dir);
      const runs = store.runs.allIds().map((id) => store.runs.get(id)!);
      const warm = runs.find((r) => r.tags.includes(WARM_START_TAG))!;
      const variant = runs.find((r) => r.tags.includes(VARIANT_TAG))!;
      expect(warm.config.expert_iteration?.rounds).toBe(0);
      const warmFolder = resolve(dir, store.checkpoints.listByRun(warm.id).find((c) => c.iteration === 0)!.path);
      expect([variant.config.model?.path, variant.config.warm_start?.steps, variant.config.expert_iteration?.rounds, variant.parentRunId, variant.status]).toEqual([warmFolder, 0, 1, null, 'completed']);
      // The variant's run played its round of expert iteration before its RL iteration.
      expect(store.metrics.series(variant.id, 'expert_iteration/success').map((p) => p.iteration)).toEqual([0]);
      store.close();
      expect(printed.some((line) => line.includes(`(expert iteration from run ${warm.id}'s policy)`))).toBe(true);
      expect(printed.join('\n')).toMatch(/frozenlake: "warm start alone" is the demonstrations' policy; "after RL" is expert iteration/);
    } finally {
      vi.restoreAllMocks();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
