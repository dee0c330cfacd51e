/**
 * Writes a Hugging Face model folder that transformers and vLLM load: config.json,
 * generation_config.json, the tokenizer files, and model.safetensors. With `merged`, LoRA
 * adapters are folded into the weights (W + scale * B A); without, the base weights are written
 * and the adapter beside them in PEFT's layout (adapter/).
 */
import { notANewFolder } from '../../make-folder';
import { copyFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HfModelError, makeHfFolder } from './config';
import { linearName, type HfDecoder } from './decoder';
import type { HfModelFolder } from './load';
import { loraScale } from './lora';
import { savePeftAdapter } from './peft';
import { storedDtypes } from './weight-headers';
import { writeHfSafetensors } from './weights';

export type ExportDtype = 'F32' | 'BF16';

/**
 * What an export writes unless told: a BF16 base under adapters written beside it never trained,
 * so it goes out as it came (half the size, `torch_dtype` unchanged); a merged or fully
 * fine-tuned one is float32, since BF16's 8 bits of mantissa round a small trained change away.
 */
export function defaultExportDtype(folder: HfModelFolder, model: HfDecoder, merged: boolean): ExportDtype {
  if (merged || !model.lora) return 'F32';
  const stored = storedDtypes(folder.dir);
  return stored.size === 1 && stored.has('BF16') ? 'BF16' : 'F32';
}

const TOKENIZER_FILES = /^(tokenizer\.json|tokenizer_config\.json|special_tokens_map\.json|generation_config\.json|vocab\.json|merges\.txt|chat_template\.jinja)$/;

/** Writes the folder and returns the dtype its weights were written in. */
export async function exportHfFolder(folder: HfModelFolder, model: HfDecoder, out: string, options: { merged: boolean; dtype?: ExportDtype }): Promise<ExportDtype> {
  const taken = notANewFolder(out);
  if (taken !== null) throw new HfModelError(`${taken}; choose a new folder for the export`);
  makeHfFolder(out);
  const dtype = options.dtype ?? defaultExportDtype(folder, model, options.merged);
  const tensors = await model.baseTensors();
  if (options.merged && model.lora) {
    const arrays = await model.trainableArrays();
    const scale = loraScale(model.lora);
    for (let layer = 0; layer < model.hf.nLayers; layer++) {
      for (const module of model.lora.targetModules) {
        const name = linearName(layer, module);
        const a = arrays[`${name}.lora_A`]; // [in, r]
        const b = arrays[`${name}.lora_B`]; // [r, out]
        const w = tensors[`${name}.weight`]; // [out, in]
        const [fanIn, rank] = a.shape;
        const fanOut = b.shape[1];
        for (let o = 0; o < fanOut; o++) {
          for (let i = 0; i < fanIn; i++) {
            let sum = 0;
            for (let r = 0; r < rank; r++) sum += a.data[i * rank + r] * b.data[r * fanOut + o];
            w.data[o * fanIn + i] += scale * sum;
          }
        }
      }
    }
  }
  await writeHfSafetensors(join(out, 'model.safetensors'), tensors, dtype);
  await writeFile(join(out, 'config.json'), `${JSON.stringify({ ...folder.configJson, torch_dtype: dtype === 'BF16' ? 'bfloat16' : 'float32' }, null, 2)}\n`);
  for (const file of await readdir(folder.dir)) if (TOKENIZER_FILES.test(file)) await copyFile(join(folder.dir, file), join(out, file));
  if (!options.merged && model.lora) await savePeftAdapter(join(out, 'adapter'), model, out);
  return dtype;
}
