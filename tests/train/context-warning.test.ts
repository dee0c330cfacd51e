import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, trainInMemory } from './helpers';

const tmp = tempDir('context-warning');
afterAll(() => tmp.cleanup());

/** Two iterations of a tiny FrozenLake in a context of `tokens`. */
const lakeWithContext = (tokens: number) =>
  loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [
    ...TINY_LAKE_OVERRIDES,
    'warm_start.steps=0',
    `model.context_length=${tokens}`,
    'trainer.total_training_steps=2',
    'trainer.val_before_train=false',
  ]);

describe('episodes that fill the context', () => {
  it('are reported once per run on the log, naming the key to raise', async () => {
    // Ten turns of FrozenLake do not fit 120 tokens: every episode is cut, at every iteration.
    const cfg = lakeWithContext(120);
    const lines: string[] = [];
    const { sink, result } = await trainInMemory(cfg, { checkpointDir: join(tmp.dir, 'run'), log: (line) => lines.push(line) });
    expect(result.status).toBe('completed');
    expect(sink.metrics.get(1)!['train/FrozenLakeNonSlip/context_full']).toBeGreaterThan(0);
    expect(sink.metrics.get(2)!['train/FrozenLakeNonSlip/context_full']).toBeGreaterThan(0);
    const warnings = lines.filter((line) => line.includes('context was full'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: \d+ of 4 train episodes at iteration 1 ended because the context was full \(model\.context_length 120\); raise model\.context_length/);
  }, 120_000);

  it('fails the run, naming the key, when not one first prompt fits: it would train nothing', async () => {
    const cfg = lakeWithContext(16);
    const outcome = await trainInMemory(cfg, { checkpointDir: join(tmp.dir, 'too-small') }).then(
      ({ result }) => result,
      (error: unknown) => ({ status: 'threw', error: String(error) }),
    );
    expect(JSON.stringify(outcome)).toMatch(/not one of the 4 train episodes could play its first turn: the first prompt leaves no room for a reply in the context \(model\.context_length 16\); raise model\.context_length/);
  }, 120_000);
});
