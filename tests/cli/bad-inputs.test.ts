// Bad inputs a new user meets first, each answered by one line naming what is wrong and how to
// fix it, exit code 2, and nothing stored for a run that never started: data folders that cannot
// be created or written, a warm start the env cannot give, step counts out of range, exports
// to a full disk or a folder, eval counts, a model folder whose config or weights are wrong,
// and Dawn's warnings kept out of the output. Messages are checked through the real entry point in
// this process (runTurnlabInProcess); a refused data folder, the unprivileged user and the native
// libraries' warnings in real `turnlab` processes.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { HfModelError, makeHfFolder } from '../../trainer-core/model/hf/config';
import { makeFixtureDataDir, makeTempDir } from '../helpers/fixtures';
import { repoRoot, runTurnlab, runTurnlabInProcess as turnlab, TINY_OVERRIDES, TINY_TRAIN } from '../helpers/turnlab-cli';

const tmp = makeTempDir('turnlab-bad-inputs-');
chmodSync(tmp.dir, 0o755);
afterAll(() => tmp.cleanup());

const bandit = join(repoRoot, 'configs/bandit.yaml');
const countdown = join(repoRoot, 'configs/countdown.yaml');

/** The one line on stderr, with exit code 2. */
function expectRefused(result: { code: number | null; stderr: string }, line: string): void {
  expect(result.stderr).toBe(`turnlab: ${line}\n`);
  expect(result.code).toBe(2);
}

/** No run left behind in `dataDir` (an empty store, or no store at all). */
async function expectNoRuns(dataDir: string): Promise<void> {
  const listed = await turnlab(['runs', '--json'], { dataDir });
  if (listed.code === 0) expect(JSON.parse(listed.stdout)).toEqual([]);
  else expect(listed.stderr).toMatch(/does not exist|no TurnLab database/);
}

// File modes do not stop root: run as root, the unprivileged cases run as `nobody` on folders
// root owns; run as another user, as that user on folders whose modes leave out its own write bit.
const asRoot = process.getuid?.() === 0;
const READ_ONLY_DIR = asRoot ? 0o755 : 0o555;
const READ_ONLY_FILE = asRoot ? 0o644 : 0o444;
const canDropPrivileges = !asRoot || spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'true']).status === 0;
function turnlabAsUser(args: string[]) {
  const argv = [join(repoRoot, 'bin/turnlab.js'), ...args];
  const result = asRoot
    ? spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...argv], { cwd: tmpdir(), encoding: 'utf8', timeout: 120_000 })
    : spawnSync(process.execPath, argv, { cwd: tmpdir(), encoding: 'utf8', timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('data folders that cannot be created or written', () => {
  it('refuses /proc and /sys at once instead of spinning or printing a stack trace', async () => {
    const proc = runTurnlab(['--data-dir', '/proc/turnlab', 'train', '--config', bandit]);
    expectRefused(proc, 'cannot create the data folder /proc/turnlab: /proc: its file system does not accept new folders (ENOENT); choose another with --data-dir or TURNLAB_DATA_DIR');
    const serve = await turnlab(['--data-dir', '/proc/turnlab', 'serve', '--no-open']);
    expectRefused(serve, 'cannot create the data folder /proc/turnlab: /proc: its file system does not accept new folders (ENOENT); choose another with --data-dir or TURNLAB_DATA_DIR');
    const sys = await turnlab(['--data-dir', '/sys/turnlab/data', 'train', '--config', bandit]);
    // Root is refused by the file system; another user by /sys's mode first.
    const why = asRoot ? 'the system does not allow new folders in it \\((EPERM|EACCES|EROFS)\\)' : 'this user may not create folders in it \\(EACCES\\)';
    expect(sys.stderr).toMatch(new RegExp(`^turnlab: cannot create the data folder /sys/turnlab/data: /sys: ${why}; choose another with --data-dir or TURNLAB_DATA_DIR\n$`));
    expect(sys.code).toBe(2);
  });

  it('refuses a bundle or a Slurm sweep folder under /proc instead of spinning (Node\'s recursive mkdir never returns there)', async () => {
    const fixture = makeFixtureDataDir();
    try {
      expectRefused(
        await turnlab(['--data-dir', fixture.dir, 'export-run', '1', '--bundle', '/proc/turnlab-bundle']),
        'cannot write the bundle /proc/turnlab-bundle: /proc: its file system does not accept new folders (ENOENT); choose another --bundle',
      );
      const sweep = await turnlab(['--data-dir', fixture.dir, 'sweep', '--config', bandit, '--grid', 'algorithm.adv_estimator=grpo,rloo', '--seeds', '1', '--executor', 'slurm', '--remote-dir', '/proc/turnlab-sweep']);
      expect(sweep.code).toBe(2);
      expect(sweep.stderr).toMatch(/^turnlab: cannot create the sweep's folder \/proc\/turnlab-sweep\/[\w-]+: \/proc: its file system does not accept new folders \(ENOENT\); choose another --remote-dir\n$/);
    } finally {
      fixture.cleanup();
    }
  });

  it('names a file standing where a parent folder should be', async () => {
    const file = join(tmp.dir, 'a-file');
    writeFileSync(file, 'x');
    expectRefused(
      await turnlab(['--data-dir', join(file, 'data'), 'train', '--config', bandit]),
      `cannot create the data folder ${join(file, 'data')}: ${file}: it is a file, not a folder (ENOTDIR); choose another with --data-dir or TURNLAB_DATA_DIR`,
    );
  });

  it.skipIf(!canDropPrivileges)('refuses a parent the user cannot write, and still lists the runs of a folder it cannot write', () => {
    const locked = join(tmp.dir, 'locked');
    mkdirSync(locked);
    chmodSync(locked, READ_ONLY_DIR);
    expectRefused(
      turnlabAsUser(['--data-dir', join(locked, 'data'), 'train', '--config', bandit]),
      `cannot create the data folder ${join(locked, 'data')}: ${locked}: this user may not create folders in it (EACCES); choose another with --data-dir or TURNLAB_DATA_DIR`,
    );
    // A colleague's results: readable, not writable. Reading commands work; training says why not.
    const shared = makeFixtureDataDir();
    try {
      chmodSync(shared.dir, READ_ONLY_DIR);
      chmodSync(join(shared.dir, 'turnlab.sqlite'), READ_ONLY_FILE);
      const before = readFileSync(join(shared.dir, 'turnlab.sqlite'));
      const listed = turnlabAsUser(['--data-dir', shared.dir, 'runs', '--json']);
      expect(listed.stderr).toBe('');
      expect((JSON.parse(listed.stdout) as Array<{ id: number }>).map((r) => r.id)).toEqual(shared.runs.map((r) => r.run.id));
      const shown = turnlabAsUser(['--data-dir', shared.dir, 'show', '1', '--json']);
      expect(shown.code, shown.stderr).toBe(0);
      const exported = turnlabAsUser(['--data-dir', shared.dir, 'export', '--all', '--what', 'runs', '--format', 'jsonl']);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout.trim().split('\n')).toHaveLength(shared.runs.length);
      expectRefused(
        turnlabAsUser(['--data-dir', shared.dir, 'train', '--config', bandit]),
        `data folder ${shared.dir} is not writable by this user (reading commands such as 'turnlab runs' still work; choose another with --data-dir to train)`,
      );
      expect(readFileSync(join(shared.dir, 'turnlab.sqlite')).equals(before)).toBe(true);
      // A folder this user may write, its database file not (left by a sudo turnlab): refused
      // before the command starts, naming the file, not by SQLite at the first write.
      chmodSync(shared.dir, 0o777);
      expectRefused(
        turnlabAsUser(['--data-dir', shared.dir, 'rename', '1', 'zz']),
        `${join(shared.dir, 'turnlab.sqlite')} is not writable by this user (reading commands such as 'turnlab runs' still work; give it back with chown, or choose another data folder with --data-dir)`,
      );
      expect(readFileSync(join(shared.dir, 'turnlab.sqlite')).equals(before)).toBe(true);
    } finally {
      // Writable again, so that a user who is not root can remove them.
      chmodSync(shared.dir, 0o755);
      chmodSync(locked, 0o755);
      shared.cleanup();
    }
  });
});

describe('configs refused before a run exists', () => {
  it('refuses warm_start.mode random-valid on a free-text env with the key and the fix', async () => {
    const dataDir = join(tmp.dir, 'warm');
    const result = await turnlab(['train', '--config', countdown, ...TINY_TRAIN, '--set', 'trainer.total_training_steps=1', '--set', 'warm_start.mode=random-valid'], { dataDir });
    expectRefused(result, "warm_start.mode: random-valid picks among named actions, but env tag 'Countdown' takes free text; use warm_start.mode: expert (or none)");
    await expectNoRuns(dataDir);
  });

  it('refuses a model too large for this machine and a thousand worker threads before the run exists (an internal error and an out-of-memory kill before)', async () => {
    const dataDir = join(tmp.dir, 'huge');
    const huge = await turnlab(['train', '--config', bandit, ...TINY_TRAIN, '--set', 'model.d_model=1000000'], { dataDir });
    expect(huge.code).toBe(2);
    expect(huge.stderr).toMatch(/^turnlab: TurnLab's own model at model.d_model=1000000 and model.n_layer=\d+ holds at least [\d.]+e\+\d+ parameters: [\d.]+ GB with its gradients and Adam's moments, more than this machine's [\d.]+ GB; lower model.d_model or model.n_layer\n$/);
    const workers = await turnlab(['train', '--config', bandit, ...TINY_TRAIN, '--set', 'trainer.workers=1000'], { dataDir });
    expectRefused(workers, '--set trainer.workers=1000: `trainer.workers` must be <= 64, got 1000');
    await expectNoRuns(dataDir);
  });

  it('refuses a context too short for one demonstrated reply before the run exists (the trainer found it only once started)', async () => {
    const dataDir = join(tmp.dir, 'context');
    const result = await turnlab(['train', '--config', bandit, ...TINY_TRAIN, '--set', 'trainer.total_training_steps=1', '--set', 'model.context_length=8'], { dataDir });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(/^turnlab: no warm-start demonstration fits the model's context of 8 tokens \(they need up to \d+, and not one first reply fits\): raise model\.context_length/);
    await expectNoRuns(dataDir);
  });

  it('refuses a first prompt that leaves no room for a reply before the run exists (a failed run was left at the first rollout)', async () => {
    const dataDir = join(tmp.dir, 'prompt');
    const result = await turnlab(['train', '--config', bandit, ...TINY_TRAIN, '--set', 'warm_start.mode=none', '--set', 'model.context_length=16'], { dataDir });
    expectRefused(
      result,
      "custom_envs.Bandit: no train episode of this tag can play a turn: its shortest first prompt is 27 tokens and leaves no room for a reply in model.context_length 16; raise model.context_length (a pretrained model's own limit is its max_position_embeddings), or shorten the observation (custom_envs.Bandit.env_config, e.g. a smaller board)",
    );
    await expectNoRuns(dataDir);
  });

  it('refuses env options that make no board before the run exists (a failed run was left behind)', async () => {
    const dataDir = join(tmp.dir, 'no-board');
    const sokoban = join(repoRoot, 'configs/sokoban.yaml');
    expectRefused(
      await turnlab(['train', '--config', sokoban, '--set', 'custom_envs.SimpleSokoban.env_config.dim_room=[4,4]'], { dataDir }),
      'es_manager.train: the environments cannot start an episode: sokoban: could not generate a 4x4 room with 1 box(es) in 200 tries; use a larger room or fewer boxes (their options: custom_envs.SimpleSokoban.env_config)',
    );
    await expectNoRuns(dataDir);
  });

  it('bounds trainer.total_training_steps: at most a million, and 0 only with a warm start', async () => {
    const dataDir = join(tmp.dir, 'steps');
    expectRefused(
      await turnlab(['train', '--config', bandit, '--set', 'trainer.total_training_steps=1e12'], { dataDir }),
      '--set trainer.total_training_steps=1e12: `trainer.total_training_steps` must be <= 1000000, got 1000000000000',
    );
    expectRefused(
      await turnlab(['train', '--config', bandit, '--set', 'trainer.total_training_steps=0', '--set', 'warm_start.mode=none'], { dataDir }),
      '--set trainer.total_training_steps=0: `trainer.total_training_steps` is 0 and there is no warm start, so the run would train nothing; give 1 or more (or a `warm_start` to train the warm start alone)',
    );
    await expectNoRuns(dataDir);
    const warmOnly = await turnlab(['train', '--config', bandit, ...TINY_TRAIN, '--set', 'trainer.total_training_steps=0', '--set', 'trainer.test_freq=0'], { dataDir });
    expect(warmOnly.code, warmOnly.stderr).toBe(0);
    expect(warmOnly.stdout).toBe('run 1 (bandit) completed at iteration 0 (the warm start alone: trainer.total_training_steps is 0)\n');
    // Expert iteration trains before RL too, with or without a warm start.
    const rounds = ['--set', 'warm_start.mode=none', '--set', 'expert_iteration.rounds=1', '--set', 'expert_iteration.episodes=4', '--set', 'expert_iteration.steps=1', '--set', 'expert_iteration.prune_revisits=false'];
    const iterated = await turnlab(['train', '--config', bandit, ...TINY_TRAIN, '--set', 'trainer.total_training_steps=0', '--set', 'trainer.test_freq=0', ...rounds], { dataDir });
    expect(iterated.code, iterated.stderr).toBe(0);
    expect(iterated.stdout).toBe('run 2 (bandit) completed at iteration 0 (the warm start and expert iteration alone: trainer.total_training_steps is 0)\n');
  });
});

describe('exports and evaluations', () => {
  let dataDir: string;
  let cleanup: () => void;
  beforeAll(() => {
    const fixture = makeFixtureDataDir({ iterations: 2 });
    dataDir = fixture.dir;
    cleanup = fixture.cleanup;
  });
  afterAll(() => cleanup());

  it('names the file when the disk is full, leaving the device in place', async () => {
    const before = statSync('/dev/full');
    expectRefused(
      await turnlab(['export', '1', '--what', 'turns', '--out', '/dev/full', '--force'], { dataDir }),
      'cannot write /dev/full: the disk is full; free space or choose another --out (ENOSPC); nothing was exported',
    );
    const after = statSync('/dev/full');
    expect(after.isCharacterDevice()).toBe(true);
    expect(after.rdev).toBe(before.rdev);
  });

  it('says a folder is a folder, even with --force', async () => {
    const folder = join(tmp.dir, 'an-export-folder');
    mkdirSync(folder);
    expectRefused(await turnlab(['export', '1', '--what', 'turns', '--out', folder, '--force'], { dataDir }), `cannot write ${folder}: it is a folder; give --out a file name (EISDIR)`);
    expect(statSync(folder).isDirectory()).toBe(true);
  });

  it('refuses a seed past 2^53 or in another notation rather than playing another seed', async () => {
    expectRefused(await turnlab(['play', 'bandit', '--seed', '9007199254740993'], { dataDir }), '--seed must be an integer of at least 0 and at most 9007199254740991, got 9007199254740993');
    expectRefused(await turnlab(['play', 'bandit', '--seed', '1e3'], { dataDir }), '--seed must be an integer of at least 0, got 1e3');
    expectRefused(await turnlab(['check', 'bandit', '--seed', '-1'], { dataDir }), '--seed must be an integer of at least 0, got -1');
  });

  it('refuses more evaluation episodes than one rollout plays, and a config that asks for them', async () => {
    expectRefused(await turnlab(['eval', '1', '--episodes', '100000000'], { dataDir }), '--episodes must be an integer of at least 1 and at most 100000, got 100000000');
    const train = await turnlab(['train', 'configs/bandit.yaml', 'es_manager.val.env_groups=100000000', 'es_manager.val.env_configs.n_groups=[100000000]'], { dataDir });
    expect(train.stderr).toContain('`es_manager.val.env_groups` (100000000) x `group_size` (1) is 100000000 episodes a rollout; at most 100000');
    expect(train.code).toBe(2);
  });

  it('says how to bring in a checkpoint folder from elsewhere (a download, another data folder)', async () => {
    const copied = join(tmp.dir, 'run-7-iter-3');
    mkdirSync(copied, { recursive: true });
    expectRefused(
      await turnlab(['eval', copied, '--episodes', '2'], { dataDir }),
      `folder ${copied} is not a checkpoint of this data folder (${dataDir}): resume and eval take the checkpoints recorded here; ` +
        `to bring a run with its checkpoints from another data folder, turnlab export-run <run> --bundle DIR there and turnlab import DIR here, or start a new run from this policy with model.path=${copied}`,
    );
  });

  it('words every bad --episodes alike', async () => {
    for (const value of ['0', '-5', 'two', '1.5']) {
      expectRefused(await turnlab(['eval', '1', `--episodes=${value}`], { dataDir }), `--episodes must be an integer of at least 1, got ${value}`);
    }
  });
});

describe('pretrained model folders', () => {
  let mismatched: string;
  let truncated: string;
  let size: number;
  beforeAll(async () => {
    mismatched = await writeRandomHfModel(join(tmp.dir, 'mismatched'), { ...PRESETS['tiny-qwen2'] }, { seed: 3 });
    const config = JSON.parse(readFileSync(join(mismatched, 'config.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(mismatched, 'config.json'), JSON.stringify({ ...config, hidden_size: 96 }));
    truncated = await writeRandomHfModel(join(tmp.dir, 'truncated'), PRESETS['tiny-qwen2'], { seed: 3 });
    size = statSync(join(truncated, 'model.safetensors')).size;
    truncateSync(join(truncated, 'model.safetensors'), size - 1000);
  });

  it('names config.json key that disagrees with the weights, before a run exists', async () => {
    const line = `${join(mismatched, 'model.safetensors')}: tensor "model.embed_tokens.weight" has shape [151936,64], the config needs [151936,96]: hidden_size is 96 in ${join(mismatched, 'config.json')} but the weights have 64; use the config.json that came with the weights`;
    expectRefused(await turnlab(['generate', '--model', mismatched, '--prompt', 'hi']), line);
    const dataDir = join(tmp.dir, 'pretrained');
    // train names the key that gave the folder, as resume and the run form do.
    expectRefused(await turnlab(['train', '--config', bandit, '--set', `actor_rollout_ref.model.path=${mismatched}`], { dataDir }), `actor_rollout_ref.model.path: ${line}`);
    await expectNoRuns(dataDir);
  });

  it('refuses an export folder that cannot be made, at once (Node\'s recursive mkdir spins forever under /proc)', () => {
    expect(() => makeHfFolder('/proc/turnlab/model')).toThrow(
      new HfModelError('cannot create /proc/turnlab/model: /proc: its file system does not accept new folders (ENOENT); choose another folder'),
    );
  });

  it('says a cut-short weight file is truncated', async () => {
    expectRefused(
      await turnlab(['generate', '--model', truncated, '--prompt', 'hi']),
      `${join(truncated, 'model.safetensors')} is truncated: its tensors need ${size} bytes but the file has ${size - 1000}; copy or download it again`,
    );
  });
});

describe("Dawn's and tfjs's own warnings", () => {
  // VK_DRIVER_FILES pointing nowhere is a machine without Vulkan, as far as the loader can tell.
  const noVulkan = { ...process.env, VK_DRIVER_FILES: join(tmp.dir, 'no-driver.json'), VK_ICD_FILENAMES: join(tmp.dir, 'no-driver.json') };
  const spawned = (args: string[], env: NodeJS.ProcessEnv) => {
    const result = spawnSync(process.execPath, [join(repoRoot, 'bin/turnlab.js'), ...args], { cwd: tmpdir(), encoding: 'utf8', env, timeout: 120_000 });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  it('leaves only TurnLab lines in backends and train output, with or without Vulkan', () => {
    for (const env of [noVulkan, process.env]) {
      const listed = spawned(['backends'], env);
      expect(listed.code).toBe(0);
      expect(listed.stderr).toBe('');
      expect(listed.stdout).not.toMatch(/Warning|node-webgpu|tfjs-node for more details/);
    }
    const dataDir = join(tmp.dir, 'quiet');
    const trained = spawned(
      ['--data-dir', dataDir, 'train', '--config', bandit, ...TINY_OVERRIDES.filter((o) => o !== 'trainer.backend=wasm').flatMap((o) => ['--set', o]), '--set', 'trainer.backend=auto', '--set', 'trainer.total_training_steps=1', '--set', 'trainer.test_freq=0'],
      noVulkan,
    );
    expect(trained.code, trained.stderr).toBe(0);
    const lines = trained.stderr.split('\n').filter(Boolean);
    expect(lines[0]).toMatch(/^backend: wasm on CPU \(WebAssembly SIMD, 1 thread\); not used: tensorflow: .*; webgpu: no WebGPU adapter/);
    expect(trained.stderr).not.toMatch(/Warning:|node-webgpu|vkCreateInstance|install our node backend/);
  });
});
