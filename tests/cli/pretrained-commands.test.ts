// The command line around a pretrained policy: train a LoRA run from a model folder, continue
// prompts with its checkpoint, export it merged as a Hugging Face folder that loads like any
// other, and play the untrained folder on a config (RAGEN's "before training" figure). Training,
// the export and the first generation run as real `turnlab` processes, the others through its
// entry point in this process.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { storedDtypes } from '../../trainer-core/model/hf/weight-headers';
import { tinyPretrainedLake } from '../helpers/tiny-lake';
import { runTurnlabInProcess } from '../helpers/turnlab-cli';

const repo = resolve(import.meta.dirname, '../..');
const root = mkdtempSync(join(tmpdir(), 'turnlab-cli-pretrained-'));
const dataDir = join(root, 'data');
let modelDir: string;
beforeAll(async () => {
  modelDir = await writeRandomHfModel(join(root, 'tiny-qwen2'), PRESETS['small-qwen2'], { seed: 9 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function turnlab(...args: string[]) {
  const result = spawnSync(process.execPath, [join(repo, 'bin/turnlab.js'), '--data-dir', dataDir, ...args], { cwd: tmpdir(), encoding: 'utf8', timeout: 280_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const inProcess = (...args: string[]) => runTurnlabInProcess(args, { dataDir });

const sets = (values: string[]) => values.flatMap((v) => ['--set', v]);

interface Generated {
  output_ids: number[];
  logprobs: number[];
}

describe('turnlab with a pretrained model', () => {
  it('trains with LoRA, generates from the checkpoint, and exports a merged folder that generates the same', async () => {
    const trained = turnlab(
      'train', '--config', join(repo, 'configs/frozenlake-nonslip.yaml'), '--name', 'qwen-lora',
      ...sets([
        ...tinyPretrainedLake(modelDir),
        'actor_rollout_ref.model.lora_rank=2',
        'actor_rollout_ref.actor.optim.lr=0.05',
        'trainer.total_training_steps=1',
      ]),
    );
    expect(trained.stderr).toContain('Qwen2ForCausalLM: ');
    expect(trained.stderr).toMatch(/LoRA rank 2 alpha 16 on q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj: [\d,]+ trainable/);
    expect(trained.code).toBe(0);
    expect(existsSync(join(dataDir, 'checkpoints/run-1/iter-1/adapter_model.safetensors'))).toBe(true);

    const prompt = ['--prompt', 'Go left', '--max-new-tokens', '3', '--greedy', '--json', '--backend', 'wasm'];
    const fromCheckpoint = turnlab('generate', '--model', 'qwen-lora', ...prompt);
    expect(fromCheckpoint.code).toBe(0);
    const out = join(root, 'merged');
    const exported = turnlab('export-model', 'qwen-lora', '--out', out, '--merged');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toMatch(/iteration 1\) written to .*merged as F32 \(adapters merged\)/);
    for (const file of ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json']) expect(existsSync(join(out, file))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')).architectures).toEqual(['Qwen2ForCausalLM']);
    const fromExport = await inProcess('generate', '--model', out, ...prompt);
    expect(fromExport.code).toBe(0);
    const a = JSON.parse(fromCheckpoint.stdout) as Generated;
    const b = JSON.parse(fromExport.stdout) as Generated;
    expect(b.output_ids).toEqual(a.output_ids);
    b.logprobs.forEach((lp, i) => expect(lp).toBeCloseTo(a.logprobs[i], 4));
    // ...and the adapters trained: the untrained base gives other logprobs.
    const base = JSON.parse((await inProcess('generate', '--model', modelDir, ...prompt)).stdout) as Generated;
    expect(Math.max(...base.logprobs.map((lp, i) => Math.abs(lp - a.logprobs[i])))).toBeGreaterThan(1e-3);
    // Unmerged, the BF16 base that never trained goes out as it came, the adapters beside it; --dtype f32 widens it.
    const unmerged = await inProcess('export-model', 'qwen-lora', '--out', join(root, 'unmerged'));
    expect(unmerged.stdout).toMatch(/written to .*unmerged as BF16\n$/);
    expect(JSON.parse(readFileSync(join(root, 'unmerged/config.json'), 'utf8')).torch_dtype).toBe('bfloat16');
    expect([...storedDtypes(join(root, 'unmerged'))]).toEqual(['BF16']);
    expect([...storedDtypes(modelDir)]).toEqual(['BF16']);
    expect(existsSync(join(root, 'unmerged/adapter/adapter_model.safetensors'))).toBe(true);
    const widened = await inProcess('export-model', 'qwen-lora', '--out', join(root, 'widened'), '--dtype', 'f32');
    expect(widened.stdout).toMatch(/as F32\n$/);
    expect([...storedDtypes(join(root, 'widened'))]).toEqual(['F32']);
    // A second export into the same folder is refused rather than mixing two models' files.
    const again = await inProcess('export-model', 'qwen-lora', '--out', out);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/not empty/);
    // A file as --out was read as a folder and ended in an internal error; it is refused, and kept.
    const file = join(root, 'a-file.txt');
    writeFileSync(file, 'keep me');
    const onFile = await inProcess('export-model', 'qwen-lora', '--out', file);
    expect(onFile.stderr).toBe(`turnlab: ${file} is a file, not a folder; choose a new folder for the export\n`);
    expect(onFile.code).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('keep me');
    // The checkpoint fixes the adapters' rank: a fork at another says which rank to keep.
    const otherRank = await inProcess('resume', 'qwen-lora', '--fork', '--name', 'rank4', '--set', 'actor_rollout_ref.model.lora_rank=4', '--set', 'trainer.total_training_steps=2');
    expect(otherRank.code).toBe(2);
    // Another base folder under the checkpoint is allowed (a moved folder) and said, since only the user knows it holds the same weights.
    const moved = await inProcess('resume', 'qwen-lora', '--fork', '--name', 'on-merged', '--set', `actor_rollout_ref.model.path=${out}`, '--set', 'trainer.total_training_steps=2');
    expect(moved.code).toBe(0);
    expect(moved.stderr).toContain(`note: the checkpoint was trained on the model folder ${modelDir}; this run loads ${out} under it, which must hold the same weights`);
    // A folder of another model (here another vocabulary) is refused, though the adapters' shapes would fit it.
    const other = join(root, 'other-vocab');
    mkdirSync(other);
    const baseConfig = JSON.parse(readFileSync(join(modelDir, 'config.json'), 'utf8')) as { vocab_size: number };
    writeFileSync(join(other, 'config.json'), JSON.stringify({ ...baseConfig, vocab_size: 999 }));
    const onOther = await inProcess('resume', 'qwen-lora', '--fork', '--name', 'on-other', '--set', `actor_rollout_ref.model.path=${other}`, '--set', 'trainer.total_training_steps=2');
    expect(onOther.code).toBe(2);
    expect(onOther.stderr).toContain(`${other} holds another model (vocab_size ${baseConfig.vocab_size} there, 999 here); fork onto the folder it was trained on, or a copy of it`);
    expect(otherRank.stderr).toMatch(/has shape \[\d+,2\], the model and LoRA settings give \[\d+,4\]: the checkpoint was trained with lora_rank 2, which sets its adapters' shapes; resume or fork it with actor_rollout_ref.model.lora_rank=2\n$/);
  }, 300_000);

  it('evaluates an untrained model folder on a config, and refuses --model without --config', async () => {
    // Overrides as --set or, as verl writes them, after the command.
    const evaluated = await inProcess('eval', '--model', modelDir, '--config', join(repo, 'configs/frozenlake-nonslip.yaml'), '--episodes', '2', '--json',
      ...sets(['trainer.backend=wasm', 'actor_rollout_ref.rollout.response_length=3']), 'agent_proxy.max_turn=1');
    expect(evaluated.code).toBe(0);
    const result = JSON.parse(evaluated.stdout) as { episodes: number; metrics: Record<string, number> };
    expect(result.episodes).toBe(2);
    expect(result.metrics).toHaveProperty('val/FrozenLakeNonSlip/success');
    const missing = await inProcess('eval', '--model', modelDir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--model needs --config/);
    const misspelt = await inProcess('eval', '--model', modelDir, '--config', join(repo, 'configs/frozenlake-nonslip.yaml'), 'agent_proxy.max_trn=1');
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toMatch(/unknown key `agent_proxy\.max_trn`; did you mean `agent_proxy\.max_turn`\?/);
    const both = await inProcess('eval', '1', '--model', modelDir, '--config', join(repo, 'configs/frozenlake-nonslip.yaml'));
    expect(both.stderr).toMatch(/give a checkpoint or --model, not both/);
  }, 300_000);

  it('says in one line what is wrong with a prompt, not with a stack', async () => {
    const generate = (...args: string[]) => inProcess('generate', '--model', modelDir, '--max-new-tokens', '2', '--backend', 'wasm', ...args);
    const empty = await generate('--prompt', '');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^turnlab: The prompt encodes to no tokens; give some text with --prompt$/m);
    expect(empty.stderr).not.toMatch(/internal error|\n\s+at /);
    const long = await generate('--prompt', 'word '.repeat(40_000));
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/^turnlab: The prompt has \d+ tokens; the model's context of \d+ leaves no room to generate: shorten --prompt$/m);
    expect(long.stderr).not.toMatch(/internal error|\n\s+at /);
  }, 300_000);
});
