/**
 * LoRA adapters in PEFT's layout, so Python PEFT loads what TurnLab trains
 * (`PeftModel.from_pretrained(base, dir)`) and TurnLab loads PEFT's: `adapter_config.json` and
 * `adapter_model.safetensors` with keys
 * `base_model.model.<linear>.lora_A.weight` [r, in] and `...lora_B.weight` [out, r].
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HfModelError, makeHfFolder } from './config';
import { linearName, type HfDecoder } from './decoder';
import { resolveTargetModules, type LoraSettings } from './lora';
import { readHfSafetensors, writeHfSafetensors, type HfTensor } from './weights';

const PREFIX = 'base_model.model.';

export function peftAdapterConfig(lora: LoraSettings, baseModel: string): Record<string, unknown> {
  return {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: baseModel,
    r: lora.rank,
    lora_alpha: lora.alpha,
    lora_dropout: 0,
    target_modules: [...lora.targetModules],
    use_rslora: lora.useRslora ?? false,
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: true,
    modules_to_save: null,
    use_dora: false,
  };
}

/** The adapter tensors under PEFT's key names, in PEFT's layout ([r, in] and [out, r]). */
export async function peftTensors(model: HfDecoder): Promise<Record<string, HfTensor>> {
  if (!model.lora) throw new Error('This model has no LoRA adapters');
  const arrays = await model.trainableArrays();
  const out: Record<string, HfTensor> = {};
  for (let layer = 0; layer < model.hf.nLayers; layer++) {
    for (const module of model.lora.targetModules) {
      const name = linearName(layer, module);
      for (const part of ['lora_A', 'lora_B'] as const) {
        const { shape, data } = arrays[`${name}.${part}`];
        out[`${PREFIX}${name}.${part}.weight`] = { shape: [shape[1], shape[0]], data: transpose(data, shape[0], shape[1]) };
      }
    }
  }
  return out;
}

export async function savePeftAdapter(dir: string, model: HfDecoder, baseModel: string): Promise<void> {
  makeHfFolder(dir);
  await writeFile(join(dir, 'adapter_config.json'), `${JSON.stringify(peftAdapterConfig(model.lora!, baseModel), null, 2)}\n`);
  await writeHfSafetensors(join(dir, 'adapter_model.safetensors'), await peftTensors(model), 'F32');
}

export interface PeftAdapter {
  lora: LoraSettings;
  baseModel: string | null;
  /** TurnLab-layout arrays (`<linear>.lora_A` [in, r], `.lora_B` [r, out]) for HfDecoder.loadTrainable. */
  arrays: Record<string, HfTensor>;
}

/** Reads a PEFT LoRA adapter folder (TurnLab's or Python PEFT's). */
export async function readPeftAdapter(dir: string): Promise<PeftAdapter> {
  const configPath = join(dir, 'adapter_config.json');
  if (!existsSync(configPath)) throw new HfModelError(`${dir} has no adapter_config.json: not a PEFT adapter folder`);
  const config = JSON.parse(await readFile(configPath, 'utf8')) as Record<string, unknown>;
  if (config.peft_type !== 'LORA') throw new HfModelError(`${configPath}: peft_type ${JSON.stringify(config.peft_type)} is not supported; TurnLab reads LORA adapters`);
  if (config.use_dora === true) throw new HfModelError(`${configPath}: DoRA adapters are not supported`);
  const rank = config.r;
  if (!Number.isInteger(rank) || (rank as number) <= 0) throw new HfModelError(`${configPath}: "r" must be a positive integer`);
  const lora: LoraSettings = {
    rank: rank as number,
    alpha: typeof config.lora_alpha === 'number' ? config.lora_alpha : 8,
    targetModules: resolveTargetModules(config.target_modules as string | string[]),
    useRslora: config.use_rslora === true,
  };
  const tensors = await readHfSafetensors(join(dir, 'adapter_model.safetensors'));
  const arrays: Record<string, HfTensor> = {};
  for (const [key, { shape, data }] of Object.entries(tensors)) {
    const match = /^base_model\.model\.(.+)\.(lora_[AB])(?:\.[^.]+)?\.weight$/.exec(key);
    if (!match) continue;
    arrays[`${match[1]}.${match[2]}`] = { shape: [shape[1], shape[0]], data: transpose(data, shape[0], shape[1]) };
  }
  return { lora, baseModel: typeof config.base_model_name_or_path === 'string' ? config.base_model_name_or_path : null, arrays };
}

/** [rows, cols] row-major to [cols, rows]. */
export function transpose(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c];
  return out;
}
