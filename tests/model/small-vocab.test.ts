// The small test folders (scripts/qwen-tokenizer-subset.ts): Qwen's tokenizer cut to 4,096 ids
// must still be a sound tokenizer of the same kind, or the tests that train on them check less.
import { copyFileSync, cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHfModelFolder, type HfModelFolder } from '../../trainer-core/model/hf/load';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { makeTempDir, type TempDir } from '../helpers/fixtures';

let temp: TempDir;
let small: HfModelFolder;
let full: HfModelFolder;

beforeAll(async () => {
  temp = makeTempDir('turnlab-small-vocab-');
  small = await openHfModelFolder(await writeRandomHfModel(join(temp.dir, 'small'), PRESETS['small-qwen2'], { seed: 1 }));
  full = await openHfModelFolder(await writeRandomHfModel(join(temp.dir, 'full'), PRESETS['tiny-qwen2'], { seed: 1 }));
}, 60_000);
afterAll(() => temp.cleanup());

describe('a tiny Qwen2 folder over 4,096 ids', () => {
  it('encodes every text within its ids and decodes it back, special tokens renumbered after the rest', () => {
    const text = '<|im_start|>user\nGrid: _OOG #P$.\n<think>Left Up</think><answer>Left || Up</answer> naïve 日本 🙂<|im_end|><|endoftext|>';
    const ids = small.tokenizer.encode(text);
    expect(Math.max(...ids)).toBeLessThan(4096);
    expect(small.tokenizer.decode(ids)).toBe(text);
    // Fewer merges, more and shorter tokens than Qwen's own.
    expect(ids.length).toBeGreaterThan(full.tokenizer.encode(text).length);
    expect(small.tokenizer.vocabSize).toBe(4096);
    expect(small.tokenizer.encode('<|im_start|><|im_end|><|endoftext|><think></think>')).toEqual([4071, 4072, 4070, 4094, 4095]);
    expect(small.tokenizer.endOfTurnId).toBe(4072);
    expect(small.tokenizer.stopIds).toEqual([4072, 4070]);
    // The ids they share mean the same text.
    expect(small.tokenizer.encode(' world')).toEqual(full.tokenizer.encode(' world'));
  });

  it("renders Qwen's chat template as the full tokenizer does", () => {
    const messages = [
      { role: 'system' as const, content: 'You are a Sokoban player.' },
      { role: 'user' as const, content: 'Turn 1: where do you push?' },
    ];
    expect(small.template!.render(messages, { addGenerationPrompt: true })).toBe(full.template!.render(messages, { addGenerationPrompt: true }));
  });

  it('refuses a tokenizer of another model, and a tokenizer.json the tokenizers library cannot read, naming the file', async () => {
    const mixed = join(temp.dir, 'mixed');
    cpSync(small.dir, mixed, { recursive: true });
    for (const file of ['tokenizer.json', 'tokenizer_config.json']) copyFileSync(join(full.dir, file), join(mixed, file));
    await expect(openHfModelFolder(mixed)).rejects.toThrow(/tokenizer\.json has ids up to 15\d{4}, but config\.json's vocab_size is 4096: the tokenizer belongs to another model/);
    writeFileSync(join(mixed, 'tokenizer.json'), JSON.stringify({ kind: 'word-byte', words: ['a'] }));
    await expect(openHfModelFolder(mixed)).rejects.toThrow(`${join(mixed, 'tokenizer.json')} is not a Hugging Face tokenizers file`);
  });
});
