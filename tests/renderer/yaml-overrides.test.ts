// The New run form's switch to the YAML editor: its overrides written into the text, the file's
// comments kept; a text that cannot take them stays as typed (starting it names the problem).
import { describe, expect, it } from 'vitest';
import { applyOverrides } from '../../renderer/src/stores/yaml-overrides';

describe('applyOverrides', () => {
  it('writes each override at its dotted path and keeps the comments', () => {
    const text = '# my run\ntrainer:\n  seed: 1 # the seed\n';
    expect(applyOverrides(text, ['trainer.seed=3', 'trainer.total_training_steps=50', 'agent_proxy.action_sep=,'])).toBe(
      '# my run\ntrainer:\n  seed: 3 # the seed\n  total_training_steps: 50\nagent_proxy:\n  action_sep: ","\n',
    );
  });

  it('merges a map into the section there, key by key, as the trainer reads it', () => {
    expect(applyOverrides('trainer:\n  seed: 1 # the seed\n  total_training_steps: 9\n', ['trainer={seed: 3}'])).toBe('trainer:\n  seed: 3 # the seed\n  total_training_steps: 9\n');
  });

  it('leaves a text that does not parse, or holds an alias to no anchor, as typed', () => {
    for (const text of ['trainer:\n  seed: [1\n', 'trainer:\n  seed: *nope\n']) expect(applyOverrides(text, ['trainer.total_training_steps=3'])).toBe(text);
  });
});
