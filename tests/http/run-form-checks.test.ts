// The New run form's server side (issue 21, points 9 and 10; issue 20, model folders): a config
// and its overrides checked key by key without starting anything, a model folder opened as the
// trainer opens it, refused edited text leaving no file and no file name behind, and the
// backends probed in a process of their own.
import { mkdirSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../main/api';
import { openStore, type Store } from '../../main/store/db';
import { RunManager } from '../../main/trainer-host/run-manager';
import { nodeTrainerLauncher } from '../../main/trainer-host/trainer-process';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { makeTempDir, type TempDir } from '../helpers/fixtures';

const repo = resolve(import.meta.dirname, '../..');
const bandit = join(repo, 'configs/bandit.yaml');

let tmp: TempDir;
let store: Store;
let manager: RunManager;
let api: Api;
let modelDir: string;

beforeAll(async () => {
  tmp = makeTempDir('turnlab-run-form-');
  store = openStore(join(tmp.dir, 'data'), { create: true });
  manager = new RunManager(store, nodeTrainerLauncher({ execPath: process.execPath, binPath: join(repo, 'bin/turnlab.js'), env: process.env }));
  api = createApi(store, { version: 'test', configsDir: join(repo, 'configs'), runManager: manager });
  modelDir = await writeRandomHfModel(join(tmp.dir, 'tiny-qwen2'), PRESETS['small-qwen2']);
});

afterAll(() => {
  manager?.dispose();
  store?.close();
  tmp?.cleanup();
});

describe('checking a run config before it starts', () => {
  it('finds nothing wrong with a ready config', async () => {
    expect(await api.checkRunConfig({ configPath: bandit, overrides: ['trainer.total_training_steps=7'] })).toEqual([]);
  });

  it('names the key of each bad override, as the trainer would refuse it', async () => {
    const problems = await api.checkRunConfig({ configPath: bandit, overrides: ['trainer.total_training_steps=ten', 'trainer.seed=-2'] });
    // A key that refers to a bad one (`${trainer.seed}`) is named too.
    expect(problems.map((p) => p.key)).toEqual(expect.arrayContaining(['trainer.seed', 'trainer.total_training_steps']));
    expect(problems.every((p) => p.message.length > 0)).toBe(true);
  });

  it('checks edited text in memory and names it as the config text', async () => {
    const problems = await api.checkRunConfig({ yaml: '# edited\ntrainer:\n  total_training_steps: ten\n' });
    expect(problems.map((p) => [p.key, p.line])).toEqual([['trainer.total_training_steps', 3]]);
    const syntax = await api.checkRunConfig({ yaml: 'trainer: [1\n' });
    expect(syntax).toHaveLength(1);
    expect(syntax[0].key).toBe('');
    expect(syntax[0].message).toMatch(/YAML/);
    expect(existsConfigs()).toEqual([]);
  });

  it('puts a misspelt key of edited text on its own line, even when an override sets the key it may have meant', async () => {
    const problems = await api.checkRunConfig({ yaml: '# edited\ntrainr:\n  total_training_steps: 3\n' });
    expect(problems.map((p) => [p.key, p.line])).toEqual([['trainr', 2]]);
    const nested = await api.checkRunConfig({ yaml: 'trainer:\n  total_training_step: 3\n', overrides: ['trainer.total_training_steps=4'] });
    expect(nested.map((p) => [p.key, p.line])).toEqual([['trainer.total_training_step', 2]]);
    // As a file of the text would be: empty text is refused as an empty file is.
    expect((await api.checkRunConfig({ yaml: '# nothing\n' }))[0].message).toMatch(/the config text is empty/);
  });

  it('opens a pretrained model folder as the trainer does', async () => {
    const check = (path: string) => api.checkRunConfig({ configPath: bandit, overrides: [`actor_rollout_ref.model.path=${path}`, 'actor_rollout_ref.model.lora_rank=4'] });
    expect(await check(modelDir)).toEqual([]);
    const missing = join(tmp.dir, 'no-such-model');
    expect(await check(missing)).toEqual([{ key: 'actor_rollout_ref.model.path', message: `Model folder ${missing} does not exist` }]);
    const empty = join(tmp.dir, 'empty-folder');
    mkdirSync(empty);
    expect(await check(empty)).toEqual([{ key: 'actor_rollout_ref.model.path', message: `${empty} has no config.json: not a Hugging Face model folder (config.json, *.safetensors, tokenizer.json)` }]);
    // What a shell would have done for a path, said where TurnLab does not.
    expect(await check(join(modelDir, 'config.json'))).toEqual([{ key: 'actor_rollout_ref.model.path', message: `Model folder ${join(modelDir, 'config.json')} is a file, not a folder: give the folder that holds it, ${modelDir}` }]);
    expect((await check('~/models/qwen'))[0].message).toBe(`Model folder ~/models/qwen does not exist: ~ is not expanded here; write the full path, ${join(homedir(), 'models/qwen')}`);
    expect((await check('./qwen-small'))[0].message).toBe(`Model folder ./qwen-small does not exist (read as ${resolve('qwen-small')}, from the folder TurnLab runs in); give an absolute path`);
    const rank = await api.checkRunConfig({ configPath: bandit, overrides: ['actor_rollout_ref.model.lora_rank=-1'] });
    expect(rank.map((p) => p.key)).toEqual(['actor_rollout_ref.model.lora_rank']);
    // A rank without a folder would train TurnLab's own model whole, the rank ignored: said at the field.
    const noFolder = await api.checkRunConfig({ configPath: bandit, overrides: ['actor_rollout_ref.model.lora_rank=8'] });
    expect(noFolder).toEqual([{ key: 'actor_rollout_ref.model.lora_rank', message: expect.stringMatching(/adds LoRA adapters to a pretrained Hugging Face model, and `actor_rollout_ref.model.path` is null .*set the model folder, or lora_rank to 0$/) }]);
  });
});

function existsConfigs(): string[] {
  const dir = join(store.dataDir, 'configs');
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

describe('starting from edited text that the trainer refuses', () => {
  it('removes the file written for it and never names that file', async () => {
    const error = (await api.startRunFromText({ yaml: 'trainer:\n  total_training_steps: ten\n' }).then(
      () => null,
      (e: unknown) => e,
    )) as Error | null;
    expect(error).not.toBeNull();
    expect(error!.message).toMatch(/the config text/);
    expect(error!.message).not.toMatch(/edited-|\.yaml/);
    expect(existsConfigs()).toEqual([]);
  });

  it('says where a relative module path of edited text was looked for, and how to give it', async () => {
    const yaml = 'custom_envs:\n  Guess: {env_type: custom, module: ./guess-number.ts}\nes_manager:\n  train: {env_configs: {tags: [Guess]}}\n  val: {env_configs: {tags: [Guess]}}\n';
    const error = (await api.startRunFromText({ yaml }).then(() => null, (e: unknown) => e)) as Error | null;
    const configs = join(store.dataDir, 'configs');
    expect(error!.message).toMatch(new RegExp(`file not found.*; a relative path in edited text is read from ${configs}, where the text is saved: give it as an absolute path$`));
    expect(existsConfigs()).toEqual([]);
  });

  it('sweeps edited text as it starts a run from it: a refusal names the grid and leaves no file', async () => {
    const sweep = api.startSweep({ yaml: 'trainer:\n  total_training_steps: 2\n', grid: ['algorithm.gama=0.9,1.0'], seeds: [0], executor: 'local' });
    const error = (await sweep.then(() => null, (e: unknown) => e)) as Error | null;
    expect(error!.message).toBe("the grid line 'algorithm.gama=0.9,1.0' (the value 0.9): unknown key `algorithm.gama`; did you mean `algorithm.gamma`?");
    expect(existsConfigs()).toEqual([]);
    const both = await api.call('startSweep', [{ yaml: 'trainer: {}', configPath: bandit, grid: [], seeds: [0], executor: 'local' }]).then(() => null, (e: unknown) => e);
    expect((both as Error).message).toMatch(/give exactly one of configPath and yaml/);
  });
});

describe('checking a sweep before it starts (the form shows it under the grid)', () => {
  it('counts the settings a sweep would train and names each combination it would leave out, with why', async () => {
    const answer = await api.checkSweep({ configPath: bandit, overrides: ['trainer.total_training_steps=2'], grid: ['algorithm.adv_estimator=gae,grpo', 'algorithm.bi_level_gae=false,true'] });
    expect(answer.problem).toBeNull();
    expect(answer.settings).toBe(3);
    expect(answer.leftOut).toHaveLength(1);
    expect(answer.leftOut[0]).toMatch(/^adv_estimator=grpo bi_level_gae=true: .*bi_level_gae/);
    // Nothing started, nothing stored.
    expect(await api.listRuns()).toEqual([]);
    expect(await api.sweepPlans()).toEqual([]);
  });

  it("says why a grid would be refused, as Start would, naming the form's grid line and the edited text", async () => {
    const misspelt = await api.checkSweep({ yaml: 'trainer:\n  total_training_steps: 2\n', grid: ['algorithm.gama=0.9,1.0'] });
    expect(misspelt).toEqual({ settings: 0, leftOut: [], problem: "the grid line 'algorithm.gama=0.9,1.0' (the value 0.9): unknown key `algorithm.gama`; did you mean `algorithm.gamma`?" });
    const noValues = await api.checkSweep({ configPath: bandit, grid: ['algorithm.gamma='] });
    expect(noValues.problem).toMatch(/algorithm\.gamma/);
    const badText = await api.checkSweep({ yaml: 'trainer: [1\n', grid: ['algorithm.gamma=0.9,1.0'] });
    expect(badText.problem).toMatch(/YAML|the config text/);
    expect(existsConfigs()).toEqual([]);
  });
});

describe('compute backends', () => {
  it('says of each whether it starts here, with its device or the reason', async () => {
    const backends = await api.listBackends();
    expect(backends.map((b) => b.name)).toEqual(['tensorflow', 'webgpu', 'wasm', 'cpu']);
    expect(backends.find((b) => b.name === 'cpu')).toMatchObject({ available: true, device: 'CPU (pure JavaScript)' });
    for (const backend of backends) {
      if (backend.available) expect(backend.device).toBeTruthy();
      else expect(backend.reason).toBeTruthy();
    }
    // Asked once per server: the second answer is the first.
    expect(await api.listBackends()).toBe(backends);
  });
});
