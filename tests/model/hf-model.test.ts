// Pretrained-model folders: the real Qwen tokenizer and chat template, config parsing, weight
// files, and the decoder checked against an independent float64 implementation of the
// published architecture (tests/helpers/hf_reference.py, numpy).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBackend } from '../../trainer-core/backend';
import { SUPPORTED_ARCHITECTURES, parseHfConfig } from '../../trainer-core/model/hf/config';
import { asPolicy } from '../../trainer-core/model/hf/generate';
import { loadHfDecoder, openHfModelFolder, type HfModelFolder } from '../../trainer-core/model/hf/load';
import { readHfSafetensors } from '../../trainer-core/model/hf/weights';
import { sampleTokens } from '../../trainer-core/model/sampler';
import { scoreTokens } from '../../trainer-core/model/scoring';
import { Rng } from '../../trainer-core/rng';
import { PRESETS, writeRandomHfModel, writeTinyHfModels } from '../../scripts/hf-random-model';
import { makeTempDir, type TempDir } from '../helpers/fixtures';
import { hasNumpy, NUMPY_NOTE, referenceLogprobs } from '../helpers/hf-reference';
import { runTurnlabInProcess } from '../helpers/turnlab-cli';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/turnlab.js');

let temp: TempDir;
/** The three families over 4,096 ids, for the decoders; Qwen's full vocabulary where its ids are what is checked. */
let small: { qwen2: string; qwen3: string; llama: string };
let qwen2Full: string;

const numpy = hasNumpy();

async function turnlab(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  await selectBackend('wasm');
  temp = makeTempDir('turnlab-hf-');
  qwen2Full = await writeRandomHfModel(join(temp.dir, 'tiny-qwen2'), PRESETS['tiny-qwen2'], { seed: 1 });
  small = await writeTinyHfModels(temp.dir, 'small');
});

afterAll(() => temp.cleanup());

describe('the Qwen tokenizer and chat template of a model folder', () => {
  let folder: HfModelFolder;
  beforeAll(async () => {
    folder = await openHfModelFolder(qwen2Full);
  });

  it('encodes to the published Qwen ids and decodes back', () => {
    expect(folder.tokenizer.encode('Hello world')).toEqual([9707, 1879]);
    expect(folder.tokenizer.encode('<|im_start|>user\n<|im_end|><|endoftext|>')).toEqual([151644, 872, 198, 151645, 151643]);
    expect(folder.tokenizer.decode([9707, 1879])).toBe('Hello world');
    const text = 'Grid: _OOG\n<answer>Left || Up</answer> naïve 日本';
    expect(folder.tokenizer.decode(folder.tokenizer.encode(text))).toBe(text);
    expect(folder.tokenizer.endOfTurnId).toBe(151645);
    expect(folder.tokenizer.stopIds).toEqual([151645, 151643]);
    expect(folder.tokenizer.vocabSize).toBe(151936);
  });

  it("renders a two-turn conversation exactly as Qwen's template does", () => {
    const text = folder.template!.render(
      [
        { role: 'system', content: 'You are a FrozenLake player.' },
        { role: 'user', content: 'Turn 1: where do you move?' },
        { role: 'assistant', content: '<answer>Right</answer>' },
        { role: 'user', content: 'Turn 2: where do you move?' },
      ],
      { addGenerationPrompt: true },
    );
    expect(text).toBe(
      '<|im_start|>system\nYou are a FrozenLake player.<|im_end|>\n' +
        '<|im_start|>user\nTurn 1: where do you move?<|im_end|>\n' +
        '<|im_start|>assistant\n<answer>Right</answer><|im_end|>\n' +
        '<|im_start|>user\nTurn 2: where do you move?<|im_end|>\n' +
        '<|im_start|>assistant\n',
    );
  });
});

describe('config.json', () => {
  it('refuses an unsupported architecture, listing the supported ones', () => {
    expect(() => parseHfConfig({ ...PRESETS['tiny-qwen2'], architectures: ['MistralForCausalLM'] })).toThrow(
      `architecture MistralForCausalLM is not supported; TurnLab runs ${SUPPORTED_ARCHITECTURES.join(', ')}`,
    );
  });

  it('refuses more layers than any model has, or than its weights hold, before naming each layer\'s tensors', async () => {
    // The tensor names of 1e12 layers, listed to check the weights, ran the process out of memory (CLI fuzz seed 130).
    expect(() => parseHfConfig({ ...PRESETS['tiny-qwen2'], num_hidden_layers: 1e12 }, 'config.json')).toThrow(
      'config.json: "num_hidden_layers" is 1000000000000, past any model TurnLab can load (at most 4096); use the config.json that came with the weights',
    );
    const deeper = join(temp.dir, 'deeper');
    cpSync(qwen2Full, deeper, { recursive: true });
    writeFileSync(join(deeper, 'config.json'), JSON.stringify({ ...PRESETS['tiny-qwen2'], num_hidden_layers: 3 }));
    await expect(openHfModelFolder(deeper)).rejects.toThrow(`${join(deeper, 'config.json')}: num_hidden_layers is 3 but the weights hold 2 layers; use the config.json that came with the weights`);
  });

  it('reads the switches of each family', () => {
    const qwen2 = parseHfConfig(PRESETS['tiny-qwen2']);
    expect([qwen2.attentionBias, qwen2.qkNorm, qwen2.tieWordEmbeddings, qwen2.nKvHeads, qwen2.headDim]).toEqual([true, false, true, 2, 16]);
    const qwen3 = parseHfConfig(PRESETS['tiny-qwen3']);
    expect([qwen3.attentionBias, qwen3.qkNorm, qwen3.headDim]).toEqual([false, true, 32]);
    const llama = parseHfConfig(PRESETS['tiny-llama']);
    expect([llama.attentionBias, llama.tieWordEmbeddings, llama.ropeScaling?.type]).toEqual([false, false, 'llama3']);
  });

  it('turnlab generate names the problem in one line for an unsupported folder', async () => {
    const bad = join(temp.dir, 'tiny-qwen2');
    const configPath = join(temp.dir, 'mistral');
    execFileSync('cp', ['-r', bad, configPath]);
    writeFileSync(join(configPath, 'config.json'), JSON.stringify({ ...PRESETS['tiny-qwen2'], architectures: ['MistralForCausalLM'] }));
    const result = await runTurnlabInProcess(['generate', '--model', configPath, '--prompt', 'hi', '--backend', 'wasm']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('is not supported; TurnLab runs Qwen2ForCausalLM, Qwen3ForCausalLM, LlamaForCausalLM');
  });
});

describe('safetensors weights', () => {
  it('reads BF16 exactly and F16 with its subnormals', async () => {
    const path = join(temp.dir, 'half.safetensors');
    const header = JSON.stringify({ a: { dtype: 'F16', shape: [4], data_offsets: [0, 8] }, b: { dtype: 'BF16', shape: [2], data_offsets: [8, 12] } });
    const bytes = Buffer.alloc(8 + header.length + 12);
    bytes.writeBigUInt64LE(BigInt(header.length), 0);
    bytes.write(header, 8);
    const at = 8 + header.length;
    [0x3c00, 0xc000, 0x0001, 0x7bff].forEach((h, i) => bytes.writeUInt16LE(h, at + 2 * i)); // 1, -2, 2^-24, 65504
    [0x3f80, 0xbfc0].forEach((h, i) => bytes.writeUInt16LE(h, at + 8 + 2 * i)); // 1, -1.5
    writeFileSync(path, bytes);
    const tensors = await readHfSafetensors(path);
    expect(Array.from(tensors.a.data)).toEqual([1, -2, 2 ** -24, 65504]);
    expect(Array.from(tensors.b.data)).toEqual([1, -1.5]);
  });
});

describe.each(['qwen2', 'qwen3', 'llama'] as const)('the %s decoder', (family) => {
  it('matches an independent float64 implementation on every position', async ({ skip }) => {
    if (!numpy) skip(NUMPY_NOTE);
    const folder = await openHfModelFolder(small[family]);
    const model = await loadHfDecoder(folder);
    const ids = folder.tokenizer.encode(folder.template!.render([{ role: 'user', content: 'Which way to the goal? Left, Down, Right or Up.' }], { addGenerationPrompt: true }));
    const ours = tf.tidy(() => scoreTokens(asPolicy(model), [ids]).logprobs!.arraySync()[0].slice(1));
    const theirs = referenceLogprobs(small[family], [ids])[0];
    expect(ours).toHaveLength(theirs.length);
    const worst = Math.max(...ours.map((v, i) => Math.abs(v - theirs[i])));
    expect(worst).toBeLessThan(1e-3);
    // The comparison means something only if the logprobs are far from uniform.
    expect(Math.max(...theirs) - Math.min(...theirs)).toBeGreaterThan(5);
    model.dispose();
  });

  it('generates with the KV cache exactly what full forward passes give', async () => {
    const folder = await openHfModelFolder(small[family]);
    const model = await loadHfDecoder(folder);
    const prompts = [folder.tokenizer.encode('Hello world'), folder.tokenizer.encode('<|im_start|>user\nA longer prompt, with more tokens in it.')];
    const options = { maxNewTokens: 8, temperature: 0.9, stopIds: folder.tokenizer.stopIds, padId: folder.tokenizer.padId };
    const cached = await sampleTokens(asPolicy(model), prompts, { ...options, rng: new Rng(5) });
    const uncached = await sampleTokens(asPolicy(model), prompts, { ...options, rng: new Rng(5), useCache: false });
    expect(cached.tokens).toEqual(uncached.tokens);
    cached.logprobs.forEach((row, i) => row.forEach((lp, t) => expect(lp).toBeCloseTo(uncached.logprobs[i][t], 5)));
    // The scorer's float32 log-softmax over 151,936 logits was off by about 2e-4 (the sampler
    // normalises in float64), hence the looser bound against it.
    const rows = prompts.map((p, i) => [...p, ...cached.tokens[i]]);
    const full = tf.tidy(() => scoreTokens(asPolicy(model), rows, { temperature: 0.9 }).logprobs!.arraySync());
    prompts.forEach((p, i) => {
      const scored = full[i].slice(p.length, p.length + cached.tokens[i].length);
      cached.logprobs[i].forEach((lp, t) => expect(Math.abs(lp - scored[t])).toBeLessThan(1e-3));
    });
    model.dispose();
  });
});

describe('turnlab generate', () => {
  it('prints prompt ids, output ids and temperature-1 logprobs that the independent implementation reproduces', async ({ skip }) => {
    if (!numpy) skip(NUMPY_NOTE);
    const result = await turnlab(['generate', '--model', qwen2Full, '--prompt', 'Hello world', '--chat', '--max-new-tokens', '6', '--temperature', '0.7', '--seed', '3', '--backend', 'wasm', '--json']);
    expect(result.stderr).toContain('Qwen2ForCausalLM: 9,798,208 parameters');
    expect(result.code).toBe(0);
    const out = JSON.parse(result.stdout) as { prompt_ids: number[]; output_ids: number[]; logprobs: number[]; text: string };
    expect(out.prompt_ids).toEqual([151644, 872, 198, 9707, 1879, 151645, 198, 151644, 77091, 198]);
    expect(out.output_ids.length).toBeGreaterThan(0);
    expect(out.logprobs).toHaveLength(out.output_ids.length);
    const theirs = referenceLogprobs(qwen2Full, [[...out.prompt_ids, ...out.output_ids]])[0].slice(out.prompt_ids.length - 1);
    out.logprobs.forEach((lp, i) => expect(Math.abs(lp - theirs[i])).toBeLessThan(1e-3));
  });

  it('decodes greedily without a seed mattering', async () => {
    // Through main() in this process: the generation above ran as a real `turnlab` process.
    const a = await runTurnlabInProcess(['generate', '--model', small.llama, '--prompt', 'Hello', '--greedy', '--max-new-tokens', '4', '--seed', '1', '--backend', 'wasm', '--json']);
    const b = await runTurnlabInProcess(['generate', '--model', small.llama, '--prompt', 'Hello', '--greedy', '--max-new-tokens', '4', '--seed', '2', '--backend', 'wasm', '--json']);
    expect(a.code).toBe(0);
    expect(JSON.parse(a.stdout).output_ids).toEqual(JSON.parse(b.stdout).output_ids);
  });
});
