import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config/load';
import { ConfigError } from '../../trainer-core/config/errors';
import type { Segment } from '../../trainer-core/rollout/context-manager';
import { buildEpisodeSequence } from '../../trainer-core/rollout/episode-sequence';
import { fitDemonstrations, fittingLength } from '../../trainer-core/train/demonstration-fit';
import type { Demonstration } from '../../trainer-core/train/demonstrations';
import { train } from '../../trainer-core/train/trainer';
import { MemorySink } from '../../trainer-core/train/sink';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';
import { tempDir, tinyBanditConfig, trainInMemory } from './helpers';

const tmp = tempDir('demonstration-fit');
afterAll(() => tmp.cleanup());

const prompt = (n: number): Segment => ({ kind: 'prompt', ids: Array<number>(n).fill(7), text: '' });
const reply = (turn: number, n: number): Segment => ({ kind: 'generated', turn, ids: Array<number>(n).fill(9), logprobs: Array<number>(n).fill(0), text: '' });
const demo = (documents: Segment[][]): Demonstration => ({ tag: 'T', text: '', sequence: buildEpisodeSequence(documents, { mode: 'episode-end', total: 0 }) });

describe('warm-start demonstrations longer than the context', () => {
  it('keep their turns up to the last whose document fits, as the rollout ends a full context', () => {
    // One document (the whole history): prompt 4, reply 3, observation 4, reply 3 = 14 tokens.
    const whole = demo([[prompt(4), reply(1, 3), prompt(4), reply(2, 3)]]);
    expect(fittingLength(whole.sequence, 14)).toBe(14);
    expect(fittingLength(whole.sequence, 13)).toBe(7);
    expect(fittingLength(whole.sequence, 7)).toBe(7);
    expect(fittingLength(whole.sequence, 6)).toBe(0);
    // A one-turn window: each turn its own document, so only a document's own length counts.
    const windowed = demo([[prompt(4), reply(1, 3)], [prompt(6), reply(2, 3)], [prompt(4), reply(3, 3)]]);
    expect(fittingLength(windowed.sequence, 9)).toBe(windowed.sequence.inputIds.length);
    expect(fittingLength(windowed.sequence, 8)).toBe(7);

    const fit = fitDemonstrations([whole, windowed, demo([[prompt(9), reply(1, 2)]])], 8);
    expect(fit).toMatchObject({ cut: 3, emptied: 1, longest: 14 });
    expect(fit.demonstrations).toHaveLength(2);
    const [cut] = fit.demonstrations;
    expect(cut.sequence.inputIds).toHaveLength(7);
    expect(cut.sequence.turnEnds).toEqual([6]);
    expect(cut.sequence.turnNumbers).toEqual([1]);
    expect(cut.sequence.lossMask).toEqual([0, 0, 0, 0, 1, 1, 1]);
    expect(cut.sequence.documentIds).toHaveLength(7);
    expect(cut.sequence.tokenRewards).toHaveLength(7);
  });

  it('train a lake run whose whole-history episodes outgrow the context, saying so once', async () => {
    const config = loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [
      ...TINY_LAKE_OVERRIDES,
      'warm_start.steps=2',
      'trainer.total_training_steps=1',
      'trainer.test_freq=0',
      'agent_proxy.max_context_window=null',
      'model.context_length=100',
    ]);
    const lines: string[] = [];
    const { result } = await trainInMemory(config, { checkpointDir: join(tmp.dir, 'lake'), log: (line) => lines.push(line) });
    expect(result.status).toBe('completed');
    const warnings = lines.filter((l) => l.includes('warm-start demonstrations were longer'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: \d+ of \d+ warm-start demonstrations were longer than the model's context of 100 tokens \(the longest needs \d+\) and were cut to the turns that fit.*raise model\.context_length/);
  }, 120_000);

  it('fail the run with the key to raise when not one first reply fits', async () => {
    const sink = new MemorySink();
    const failure = await train({ config: tinyBanditConfig(['model.context_length=8']), sink, checkpointDir: join(tmp.dir, 'bandit') }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toMatch(/^no warm-start demonstration fits the model's context of 8 tokens \(they need up to \d+, and not one first reply fits\): raise model\.context_length/);
    expect(sink.status).toBe('failed');
    expect(sink.error).toBe((failure as Error).message);
  }, 60_000);
});
