// The check before a run exists that every env tag's first prompt leaves room for a reply: a
// model trained from scratch is counted with bytes first and with its fitted tokenizer only
// where bytes do not fit, that tokenizer fitted once for every split (as the trainer fits it).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRunConfig } from '../../trainer-core/config';
import { EnvStateManager, loadEnvSpecResolver } from '../../trainer-core';
import { checkFirstPromptsFit, promptTokenizers } from '../../trainer-core/compute';
import { tightestFirstPrompt } from '../../trainer-core/train/first-prompt-fit';
import { TINY_LAKE_OVERRIDES } from '../helpers/tiny-lake';

const lake = (contextLength: number) =>
  loadRunConfig(join(import.meta.dirname, '../../configs/frozenlake-nonslip.yaml'), [...TINY_LAKE_OVERRIDES, `model.context_length=${contextLength}`]);

async function started(contextLength: number) {
  const cfg = lake(contextLength);
  const resolveSpec = await loadEnvSpecResolver(cfg, ['train', 'val'], process.cwd());
  const splits = (['train', 'val'] as const).map((split) => {
    const es = new EnvStateManager(cfg, split, { resolveSpec });
    es.reset();
    return es;
  });
  return { cfg, resolveSpec, splits };
}

describe('first prompts that must leave room for a reply', () => {
  it('passes a prompt whose bytes overflow the context but whose tokens fit, fitting the run tokenizer once', async () => {
    const wide = await started(4096);
    const tokenizers = promptTokenizers(wide.cfg, wide.resolveSpec, null)!;
    const [bytes, fitted] = tokenizers.candidates;
    expect(fitted()).toBe(fitted());
    const byBytes = tightestFirstPrompt(wide.cfg, wide.splits[0], bytes(), 4096)!;
    const byTokens = tightestFirstPrompt(wide.cfg, wide.splits[0], fitted(), 4096)!;
    expect(byTokens.promptTokens).toBeLessThan(byBytes.promptTokens);

    // A context the tokens leave room in and the bytes do not.
    const roomIn = (contextLength: number, tokenizer: typeof bytes) => tightestFirstPrompt(wide.cfg, wide.splits[0], tokenizer(), contextLength)!.room;
    const between = Array.from({ length: 64 }, (_, i) => byTokens.promptTokens + i).find((c) => roomIn(c, fitted) >= 1 && roomIn(c, bytes) < 1)!;
    expect(between).toBeDefined();
    const tight = await started(between);
    const tightTokenizers = promptTokenizers(tight.cfg, tight.resolveSpec, null)!;
    let asked = 0;
    const counting = { ...tightTokenizers, candidates: [tightTokenizers.candidates[0], () => (asked++, tightTokenizers.candidates[1]())] };
    for (const es of tight.splits) checkFirstPromptsFit(tight.cfg, es, counting);
    // Both splits needed the fitted tokenizer (bytes leave no room), which is fitted once: the same object each time.
    expect(asked).toBe(2);

    // Where the tokens leave no room either, the tag and its prompt's tokens are named.
    const none = await started(byTokens.promptTokens);
    expect(() => checkFirstPromptsFit(none.cfg, none.splits[0], promptTokenizers(none.cfg, none.resolveSpec, null))).toThrow(
      new RegExp(`^custom_envs\\.FrozenLakeNonSlip: no train episode of this tag can play a turn: its shortest first prompt is ${byTokens.promptTokens} tokens`),
    );
  });

  it('asks nothing of a run that starts from a checkpoint, whose tokenizer comes with its weights', async () => {
    const { cfg, resolveSpec } = await started(16);
    expect(promptTokenizers({ ...cfg, model: { ...cfg.model, path: '/nowhere/checkpoint' } }, resolveSpec, null)).toBeNull();
  });
});
