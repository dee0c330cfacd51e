// A folder given as a Hugging Face model that is something else a researcher keeps beside their
// models (a PEFT adapter, a TurnLab checkpoint, llama.cpp's GGUF files) is named for what it is,
// with what to give instead; the run's key is named as `train` reads it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openHfModelFolder } from '../../trainer-core/compute';
import { loadRunConfig } from '../../trainer-core/config';
import { prepareRun } from '../../main/services/prepare-run';
import { makeTempDir } from '../helpers/fixtures';
import { repoRoot } from '../helpers/turnlab-cli';

const tmp = makeTempDir('folder-kind');
afterAll(() => tmp.cleanup());

function folder(name: string, files: Record<string, string>): string {
  const dir = join(tmp.dir, name);
  mkdirSync(dir);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

describe('a folder that is no Hugging Face model', () => {
  it('names a PEFT adapter and the base model its config names', async () => {
    const dir = folder('adapter', { 'adapter_config.json': JSON.stringify({ peft_type: 'LORA', base_model_name_or_path: 'Qwen/Qwen2.5-0.5B-Instruct', r: 8 }), 'adapter_model.safetensors': '' });
    await expect(openHfModelFolder(dir)).rejects.toThrow(`${dir} is a PEFT adapter (adapter_config.json), not a model: give its base model, Qwen/Qwen2.5-0.5B-Instruct, as the path;`);
    const unnamed = folder('adapter-unnamed', { 'adapter_config.json': '{' });
    await expect(openHfModelFolder(unnamed)).rejects.toThrow(`${unnamed} is a PEFT adapter (adapter_config.json), not a model: give its base model as the path;`);
  });

  it('names a TurnLab checkpoint and the commands that take it', async () => {
    const dir = folder('iter-3', { 'policy.safetensors': '', 'adapter_config.json': '{}' });
    await expect(openHfModelFolder(dir)).rejects.toThrow(`${dir} is a TurnLab checkpoint (policy.safetensors), not a Hugging Face model: \`turnlab resume ${dir} --fork\` goes on from it`);
  });

  it("names GGUF files, with or without a config.json", async () => {
    const bare = folder('gguf', { 'qwen2.5-0.5b-instruct-q4_k_m.gguf': '' });
    await expect(openHfModelFolder(bare)).rejects.toThrow(`${bare} holds GGUF weights (qwen2.5-0.5b-instruct-q4_k_m.gguf: llama.cpp's format, which TurnLab does not read) and no config.json`);
    const config = { architectures: ['Qwen2ForCausalLM'], vocab_size: 16, hidden_size: 8, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 2, intermediate_size: 16 };
    const withConfig = folder('gguf-config', { 'model.gguf': '', 'config.json': JSON.stringify(config) });
    await expect(openHfModelFolder(withConfig)).rejects.toThrow(/neither model\.safetensors nor model\.safetensors\.index\.json; copy the model's safetensors files into it \(GGUF weights \(model\.gguf: llama\.cpp's format\) and PyTorch \.bin weights are not read/);
  });

  it('says which key named it when a run is prepared', async () => {
    const empty = folder('empty', {});
    const cfg = loadRunConfig(join(repoRoot, 'configs/bandit.yaml'), [`actor_rollout_ref.model.path=${empty}`]);
    await expect(prepareRun(cfg, repoRoot)).rejects.toThrow(`actor_rollout_ref.model.path: ${empty} has no config.json: not a Hugging Face model folder (config.json, *.safetensors, tokenizer.json)`);
  });
});
