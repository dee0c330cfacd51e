// A Hugging Face folder whose max_position_embeddings is below model.context_length: the run
// takes the lower (pretrained-models.ts), and so must the rollout, or the decoder refuses a
// context past its positions with an internal error.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { PRESETS, writeRandomHfModel } from '../../scripts/hf-random-model';
import { tinyPretrainedLake } from '../helpers/tiny-lake';
import { tempDir, trainInMemory } from './helpers';
import { prepareRun } from '../../main/services/prepare-run';

const tmp = tempDir('pretrained-context');
afterAll(() => tmp.cleanup());

/** A tiny FrozenLake run on a Qwen2 folder of `positions` max_position_embeddings, under a model.context_length of 512. */
async function shortModelLake(positions: number) {
  const modelDir = await writeRandomHfModel(join(tmp.dir, `short-qwen2-${positions}`), { ...PRESETS['small-qwen2'], max_position_embeddings: positions }, { seed: 2 });
  return loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [
    ...tinyPretrainedLake(modelDir),
    'actor_rollout_ref.model.lora_rank=4',
    'model.context_length=512',
    'trainer.total_training_steps=1',
  ]);
}

describe("a pretrained folder's max_position_embeddings below model.context_length", () => {
  it('ends the episodes at the model’s positions and says which key limits them', async () => {
    // 40 positions: the first turn fits, the later ones do not.
    const config = await shortModelLake(40);
    const lines: string[] = [];
    const { sink, result } = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'run'), log: (line) => lines.push(line) });
    expect(result.status).toBe('completed');
    const train = sink.episodes.filter((e) => e.split === 'train');
    expect(train.length).toBeGreaterThan(0);
    expect(train.every((e) => e.truncated)).toBe(true);
    expect(lines.filter((l) => l.startsWith('warning: ') && l.includes('context was full'))).toEqual([
      expect.stringContaining("(the model's max_position_embeddings 40, below model.context_length 512); shorten episodes"),
    ]);
  }, 120_000);

  it('fails the run, naming the model\'s positions, when not even the first turn fits them', async () => {
    const config = await shortModelLake(16);
    const outcome = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'none-fits') }).then(
      ({ result }) => result,
      (error: unknown) => ({ status: 'threw', error: String(error) }),
    );
    expect(JSON.stringify(outcome)).toMatch(/could play its first turn: .*\(the model's max_position_embeddings 16, below model\.context_length 512\)/);
    // A run started as the CLI and the workbench start one is refused before it exists, with the
    // folder's tokenizer and positions; a 64-position model's first prompts fit.
    await expect(prepareRun(config, tmp.dir)).rejects.toThrow(
      /^custom_envs\.FrozenLake\w+: no train episode of this tag can play a turn: its shortest first prompt is \d+ tokens and leaves no room for a reply in the model's max_position_embeddings 16, below model\.context_length 512; /,
    );
    await expect(prepareRun(await shortModelLake(64), tmp.dir)).resolves.toBeDefined();
  }, 120_000);
});
