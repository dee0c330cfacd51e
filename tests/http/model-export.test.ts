// The workbench's model line and Hugging Face export over `turnlab serve`'s HTTP API: a LoRA run
// trained by the CLI on a tiny random-weight Qwen2 folder reports its model (folder name,
// architecture, stored parameter count, LoRA settings); its checkpoint exports merged through
// `turnlab export-model` in a child process, into a folder transformers would load; a
// from-scratch run is described by its size and refused export with the reason.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, type Api } from '../../main/api';
import { startHttpServer, type RunningHttpServer } from '../../main/http';
import { openStore, type Store } from '../../main/store/db';
import { RunManager } from '../../main/trainer-host/run-manager';
import { nodeTrainerLauncher } from '../../main/trainer-host/trainer-process';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { TINY_LAKE_OVERRIDES, tinyPretrainedLake } from '../helpers/tiny-lake';
import { runTurnlabInProcess } from '../helpers/turnlab-cli';

const repo = resolve(import.meta.dirname, '../..');
let tmp: TempDir;
let store: Store;
let manager: RunManager;
let server: RunningHttpServer;
let modelDir: string;
let trainerLog = '';
/** The desktop app's API: its folder dialog answers `chosen` (null: cancelled). */
let desktop: Api;
let chosen: string | null = null;
const dialogTitles: string[] = [];

/** The two runs the API describes, trained through the `turnlab` entry point in this process. */
const turnlab = (...args: string[]) => runTurnlabInProcess(args, { dataDir: join(tmp.dir, 'data') });

const sets = (values: string[]) => values.flatMap((v) => ['--set', v]);

async function call(method: string, ...args: unknown[]): Promise<{ status: number; result?: unknown; error?: { code: string; message: string } }> {
  const reply = await fetch(`http://127.0.0.1:${server.port}/api/${method}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(args),
  });
  return { status: reply.status, ...((await reply.json()) as object) };
}

beforeAll(async () => {
  tmp = makeTempDir('turnlab-model-export-');
  modelDir = await writeRandomHfModel(join(tmp.dir, 'tiny-qwen2'), PRESETS['small-qwen2'], { seed: 4 });
  const trained = await turnlab(
    'train', '--config', join(repo, 'configs/frozenlake-nonslip.yaml'), '--name', 'qwen-lora',
    ...sets([
      ...tinyPretrainedLake(modelDir),
      'actor_rollout_ref.model.lora_rank=4',
      'actor_rollout_ref.model.lora_alpha=8',
      'actor_rollout_ref.model.target_modules=[q_proj,v_proj]',
      'trainer.total_training_steps=1',
    ]),
  );
  trainerLog = trained.stderr;
  expect(trained.code, trained.stderr).toBe(0);
  const scratch = await turnlab('train', '--config', join(repo, 'configs/frozenlake-nonslip.yaml'), '--name', 'scratch',
    ...sets([...TINY_LAKE_OVERRIDES, 'trainer.total_training_steps=1', 'trainer.save_freq=1']));
  expect(scratch.code, scratch.stderr).toBe(0);
  store = openStore(join(tmp.dir, 'data'));
  manager = new RunManager(store, nodeTrainerLauncher({ execPath: process.execPath, binPath: join(repo, 'bin/turnlab.js'), env: process.env }));
  // Browser mode: no dialogs, so the output folder is given as a path on the server.
  server = await startHttpServer({ api: createApi(store, { version: 'test', runManager: manager }), rendererDir: tmp.dir });
  desktop = createApi(store, {
    version: 'test',
    runManager: manager,
    dialogs: {
      chooseFile: async () => null,
      chooseFolder: async (title) => {
        dialogTitles.push(title);
        return chosen;
      },
    },
  });
}, 300_000);

afterAll(async () => {
  await server?.close();
  manager?.dispose();
  store?.close();
  tmp?.cleanup();
});

describe('a pretrained run in the workbench API', () => {
  it('describes the model from the stored config and counts its parameters as the trainer logged them', async () => {
    const reply = await call('runModel', 1);
    expect(reply.status).toBe(200);
    // The trainer logs the base model's parameters and the adapters' apart, as the model line
    // does; the stored count (the Runs table's) is both.
    const stated = /Qwen2ForCausalLM: ([\d,]+) parameters.*: ([\d,]+) trainable/.exec(trainerLog);
    expect(stated).not.toBeNull();
    const [base, adapters] = [stated![1], stated![2]].map((n) => Number(n.replace(/,/g, '')));
    expect(reply.result).toEqual({
      kind: 'pretrained',
      path: modelDir,
      name: 'tiny-qwen2',
      architecture: 'Qwen2ForCausalLM',
      parameterCount: base,
      trainableCount: adapters,
      lora: { rank: 4, alpha: 8, targetModules: ['q_proj', 'v_proj'] },
    });
    expect(((await call('getRun', 1)).result as { parameterCount: number }).parameterCount).toBe(base + adapters);
  });

  it('describes a from-scratch run by its size', async () => {
    const reply = await call('runModel', 2);
    expect(reply.result).toMatchObject({ kind: 'scratch', layers: expect.any(Number), dModel: expect.any(Number) });
    expect((reply.result as { parameterCount: number }).parameterCount).toBeGreaterThan(0);
  });

  it('exports a checkpoint merged as a Hugging Face folder and says where', async () => {
    const checkpointId = store.checkpoints.latest(1)!.id;
    const out = join(tmp.dir, 'exported');
    const reply = await call('exportCheckpointModel', { checkpointId, out, merged: true, dtype: 'BF16' });
    expect(reply.error).toBeUndefined();
    expect(reply.result).toEqual({ checkpointId, runId: 1, iteration: 1, out, merged: true, dtype: 'BF16' });
    for (const file of ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']) expect(existsSync(join(out, file))).toBe(true);
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')) as { architectures: string[]; torch_dtype?: string };
    expect(config.architectures).toEqual(['Qwen2ForCausalLM']);
    // The header of a BF16 safetensors file names the dtype of every tensor.
    const bytes = readFileSync(join(out, 'model.safetensors'));
    const header = JSON.parse(bytes.subarray(8, 8 + Number(bytes.readBigUInt64LE(0))).toString('utf8')) as Record<string, { dtype?: string }>;
    const dtypes = new Set(Object.entries(header).filter(([key]) => key !== '__metadata__').map(([, t]) => t.dtype));
    expect([...dtypes]).toEqual(['BF16']);

    // The same folder again is refused with the exporter's own reason, and nothing is overwritten.
    const again = await call('exportCheckpointModel', { checkpointId, out, merged: false, dtype: 'F32' });
    expect(again.status).toBe(400);
    expect(again.error?.message).toMatch(/not empty/);
  }, 120_000);

  it('refuses a relative folder, a from-scratch run, and the folder dialog in browser mode', async () => {
    const checkpointId = store.checkpoints.latest(1)!.id;
    expect((await call('exportCheckpointModel', { checkpointId, out: 'relative/folder', merged: true, dtype: 'F32' })).error?.message).toMatch(/absolute path/);
    const scratch = await call('exportCheckpointModel', { checkpointId: store.checkpoints.latest(2)!.id, out: join(tmp.dir, 'scratch'), merged: true, dtype: 'F32' });
    expect(scratch.error).toMatchObject({ code: 'REFUSED', message: expect.stringMatching(/from scratch.*no Hugging Face form/) });
    expect(existsSync(join(tmp.dir, 'scratch'))).toBe(false);
    expect((await call('exportCheckpointModel', { checkpointId, merged: true, dtype: 'F32' })).error).toMatchObject({ code: 'REFUSED' });
  });

  it('asks the desktop app\'s folder dialog when no folder is given, and does nothing when cancelled', async () => {
    const checkpointId = store.checkpoints.latest(1)!.id;
    expect(await desktop.exportCheckpointModel({ checkpointId, merged: false, dtype: 'F32' })).toBeNull();
    expect(dialogTitles).toEqual(['Export the model as a Hugging Face folder into (a new or empty folder)']);
    chosen = join(tmp.dir, 'chosen');
    const result = await desktop.exportCheckpointModel({ checkpointId, merged: false, dtype: 'F32' });
    expect(result).toEqual({ checkpointId, runId: 1, iteration: 1, out: chosen, merged: false, dtype: 'F32' });
    // Unmerged: the base weights, and the trained adapter beside them in PEFT's layout.
    for (const file of ['config.json', 'model.safetensors', 'adapter/adapter_config.json', 'adapter/adapter_model.safetensors']) {
      expect(existsSync(join(chosen, file)), file).toBe(true);
    }
  }, 120_000);
});
