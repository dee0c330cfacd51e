/**
 * Why a folder given as a Hugging Face model is not one, in the user's terms: the folders a
 * researcher has at hand beside their models (a PEFT adapter, a TurnLab checkpoint, llama.cpp's
 * GGUF files) each say what they are and what to give instead.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HfModelError } from './config';

const MODEL_FILES = '(config.json, *.safetensors, tokenizer.json)';

function ggufFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((file) => file.toLowerCase().endsWith('.gguf'));
  } catch {
    return [];
  }
}

/** The base model a PEFT adapter names, when its adapter_config.json says one. */
function adapterBase(dir: string): string | null {
  try {
    const base = (JSON.parse(readFileSync(join(dir, 'adapter_config.json'), 'utf8')) as { base_model_name_or_path?: unknown }).base_model_name_or_path;
    return typeof base === 'string' && base !== '' ? base : null;
  } catch {
    return null;
  }
}

/** The error for a folder without config.json. */
export function noConfigError(dir: string): HfModelError {
  if (existsSync(join(dir, 'policy.safetensors'))) {
    return new HfModelError(
      `${dir} is a TurnLab checkpoint (policy.safetensors), not a Hugging Face model: \`turnlab resume ${dir} --fork\` goes on from it, ` +
        `\`turnlab export-model ${dir} --out <folder>\` writes it as a model folder`,
    );
  }
  if (existsSync(join(dir, 'adapter_config.json'))) {
    const base = adapterBase(dir);
    return new HfModelError(
      `${dir} is a PEFT adapter (adapter_config.json), not a model: give its base model${base === null ? '' : `, ${base},`} as the path; ` +
        "TurnLab's adapters start at zero on it (its own runs' adapters go on with `turnlab resume <run> --fork`)",
    );
  }
  const gguf = ggufFiles(dir);
  if (gguf.length > 0) {
    return new HfModelError(`${dir} holds GGUF weights (${gguf[0]}: llama.cpp's format, which TurnLab does not read) and no config.json; give the model's Hugging Face folder ${MODEL_FILES}`);
  }
  return new HfModelError(`${dir} has no config.json: not a Hugging Face model folder ${MODEL_FILES}`);
}

/** What a folder with config.json but no safetensors weights holds instead, and what to copy. */
export function noWeightsError(dir: string): HfModelError {
  const gguf = ggufFiles(dir);
  const other = gguf.length > 0 ? `GGUF weights (${gguf[0]}: llama.cpp's format) and PyTorch .bin weights are not read` : 'PyTorch .bin weights are not read';
  return new HfModelError(
    `${dir} has neither model.safetensors nor model.safetensors.index.json; copy the model's safetensors files into it (${other}: transformers' save_pretrained writes safetensors)`,
  );
}
