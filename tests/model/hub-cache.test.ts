// A Hub id as the model path (`Qwen/Qwen2.5-0.5B-Instruct`, as verl's configs write it) is read
// from the local Hugging Face cache in huggingface_hub's layout (refs/main, snapshots of links
// into blobs/), offline; one the cache lacks is refused with the command that fetches it.
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { findInHubCache, hubCacheDir, looksLikeHubId } from '../../trainer-core/model/hf/hub-cache';
import { isHfModelFolder, openHfModelFolder } from '../../trainer-core/model/hf/load';
import { repoRoot, runTurnlabInProcess } from '../helpers/turnlab-cli';
import { openStore } from '../../main/store/db';
import { describeRunModel } from '../../main/services/run-model';

const root = mkdtempSync(join(tmpdir(), 'turnlab-hub-cache-'));
const cache = join(root, 'hub');
const ID = 'test-org/tiny-qwen2';
const repo = join(cache, 'models--test-org--tiny-qwen2');
const snapshot = join(repo, 'snapshots', '0123abcd');
let plainDir: string;

beforeAll(async () => {
  plainDir = await writeRandomHfModel(join(root, 'plain'), PRESETS['small-qwen2'], { seed: 4 });
  // The cache's layout: each file a blob, the snapshot's entries links to them.
  const staged = await writeRandomHfModel(join(root, 'staged'), PRESETS['small-qwen2'], { seed: 4 });
  mkdirSync(join(repo, 'blobs'), { recursive: true });
  mkdirSync(snapshot, { recursive: true });
  mkdirSync(join(repo, 'refs'));
  for (const [i, file] of readdirSync(staged).entries()) {
    renameSync(join(staged, file), join(repo, 'blobs', `blob${i}`));
    symlinkSync(join('..', '..', 'blobs', `blob${i}`), join(snapshot, file));
  }
  writeFileSync(join(repo, 'refs', 'main'), '0123abcd');
  mkdirSync(join(cache, 'models--test-org--two', 'snapshots', 'a'), { recursive: true });
  mkdirSync(join(cache, 'models--test-org--two', 'snapshots', 'b'));
}, 120_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the Hugging Face cache', () => {
  it("finds huggingface_hub's cache folder as it does", () => {
    expect(hubCacheDir({ HF_HUB_CACHE: '/a', HF_HOME: '/b' })).toBe('/a');
    expect(hubCacheDir({ HF_HOME: '/b', XDG_CACHE_HOME: '/c' })).toBe('/b/hub');
    expect(hubCacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/huggingface/hub');
    expect(['Qwen/Qwen2.5-0.5B-Instruct', 'meta-llama/Llama-3.2-1B'].map(looksLikeHubId)).toEqual([true, true]);
    expect(['./models/qwen', '/models/qwen', 'qwen', 'a/b/c', '../x', 'a/..'].map(looksLikeHubId)).toEqual([false, false, false, false, false, false]);
  });

  it('opens a Hub id from its snapshot, the one refs/main names', async () => {
    expect(findInHubCache(ID, cache)).toEqual({ found: true, dir: snapshot });
    const previous = process.env.HF_HUB_CACHE;
    process.env.HF_HUB_CACHE = cache;
    try {
      expect(isHfModelFolder(ID)).toBe(true);
      const folder = await openHfModelFolder(ID);
      expect(folder.dir).toBe(snapshot);
      expect(folder.hubId).toBe(ID);
      expect(folder.config.vocabSize).toBe(PRESETS['small-qwen2'].vocab_size);
      // A folder given as such is itself, with no Hub id.
      expect((await openHfModelFolder(plainDir)).hubId).toBeUndefined();
    } finally {
      if (previous === undefined) delete process.env.HF_HUB_CACHE;
      else process.env.HF_HUB_CACHE = previous;
    }
  });

  it('generates from the Hub id what it generates from the same weights in a folder', async () => {
    const args = ['--prompt', 'hello', '--max-new-tokens', '3', '--greedy', '--backend', 'wasm', '--json'];
    const env = { HF_HUB_CACHE: cache };
    const fromHub = await runTurnlabInProcess(['generate', '--model', ID, ...args], { env });
    const fromFolder = await runTurnlabInProcess(['generate', '--model', plainDir, ...args], { env });
    expect(fromHub.stderr).not.toMatch(/error/i);
    expect(fromHub.code).toBe(0);
    expect(JSON.parse(fromHub.stdout).output_ids).toEqual(JSON.parse(fromFolder.stdout).output_ids);
    // An id the cache lacks is named as a model with the command that fetches it, not as an unknown run.
    const missing = await runTurnlabInProcess(['generate', '--model', 'test-org/missing', ...args], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^turnlab: Model folder test-org\/missing does not exist, and test-org\/missing is not in the Hugging Face cache .*`hf download test-org\/missing`/m);
  });

  it('plays the Hub id untrained with turnlab eval --model, read from the cache, not as a relative path', async () => {
    const env = { HF_HUB_CACHE: cache };
    const config = join(repoRoot, 'configs/bandit.yaml');
    const played = await runTurnlabInProcess(['eval', '--model', ID, '--config', config, '--episodes', '2', '--set', 'trainer.backend=wasm', '--json'], { env });
    expect(played.stderr).not.toMatch(/^turnlab:/m);
    expect(played.code).toBe(0);
    expect(JSON.parse(played.stdout)).toMatchObject({ model: ID, episodes: 2 });
    const missing = await runTurnlabInProcess(['eval', '--model', 'test-org/missing', '--config', config], { env });
    expect(missing.stderr).toMatch(/^turnlab: Model folder test-org\/missing does not exist, and test-org\/missing is not in the Hugging Face cache /m);
  });

  it('resumes a run trained from a Hub id, and names its architecture, from the same cache', async () => {
    const env = { HF_HUB_CACHE: cache };
    const dataDir = join(root, 'data');
    const small = [
      'trainer.backend=wasm', 'trainer.workers=1', 'trainer.total_training_steps=1', 'trainer.test_freq=0', 'trainer.val_before_train=false', 'warm_start.steps=0',
      'es_manager.train.env_groups=2', 'es_manager.train.group_size=2', 'es_manager.train.env_configs.n_groups=[2]',
      'ppo_mini_batch_size=4', 'micro_batch_size_per_gpu=2', 'actor_rollout_ref.rollout.response_length=8',
      `actor_rollout_ref.model.path=${ID}`, 'actor_rollout_ref.model.lora_rank=4',
    ].flatMap((o) => ['--set', o]);
    const trained = await runTurnlabInProcess(['train', '--config', join(repoRoot, 'configs/bandit.yaml'), ...small, '--name', 'from-hub'], { env, dataDir });
    expect(trained.stderr).not.toMatch(/^turnlab:/m);
    expect(trained.code).toBe(0);
    const resumed = await runTurnlabInProcess(['resume', 'from-hub', '--set', 'trainer.total_training_steps=2'], { env, dataDir });
    expect(resumed.stderr).not.toMatch(/^turnlab:/m);
    expect(resumed.code).toBe(0);
    const previous = process.env.HF_HUB_CACHE;
    process.env.HF_HUB_CACHE = cache;
    try {
      const store = openStore(dataDir);
      const run = store.runs.list().find((r) => r.name === 'from-hub')!;
      expect(describeRunModel(run)).toMatchObject({ kind: 'pretrained', path: ID, architecture: 'Qwen2ForCausalLM' });
      store.close();
    } finally {
      if (previous === undefined) delete process.env.HF_HUB_CACHE;
      else process.env.HF_HUB_CACHE = previous;
    }
  }, 300_000);

  it('refuses an id the cache lacks, or holds twice without refs/main, naming the cache and the fix', async () => {
    const previous = process.env.HF_HUB_CACHE;
    process.env.HF_HUB_CACHE = cache;
    try {
      await expect(openHfModelFolder('test-org/missing')).rejects.toThrow(
        `Model folder test-org/missing does not exist, and test-org/missing is not in the Hugging Face cache (${cache}); TurnLab does not download: \`hf download test-org/missing\` (huggingface_hub) puts it there, or give a folder`,
      );
      await expect(openHfModelFolder('test-org/two')).rejects.toThrow(/test-org\/two has 2 snapshots and no refs\/main to choose one .*; give the snapshot folder itself/);
      // A path that is no Hub id keeps the plain message.
      await expect(openHfModelFolder(join(root, 'nope'))).rejects.toThrow(`Model folder ${join(root, 'nope')} does not exist`);
    } finally {
      if (previous === undefined) delete process.env.HF_HUB_CACHE;
      else process.env.HF_HUB_CACHE = previous;
    }
  });
});
