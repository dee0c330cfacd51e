import { describe, expect, it } from 'vitest';
import type { Segment } from '../../trainer-core/rollout/context-manager';
import { buildEpisodeSequence } from '../../trainer-core/rollout/episode-sequence';

const segments: Segment[] = [
  { kind: 'prompt', ids: [10, 11, 12], text: 'abc' },
  { kind: 'generated', ids: [20, 21, 1], logprobs: [-0.1, -0.2, -0.3], turn: 1, text: 'xy' },
  { kind: 'prompt', ids: [13, 14], text: 'de' },
  { kind: 'generated', ids: [22, 1], logprobs: [-0.4, -0.5], turn: 2, text: 'z' },
  { kind: 'prompt', ids: [15], text: 'f' },
  { kind: 'generated', ids: [23, 24], logprobs: [-0.6, -0.7], turn: 3, text: 'cut' },
  { kind: 'prompt', ids: [1], text: '' },
];

describe('buildEpisodeSequence', () => {
  it('keeps the generated ids and masks exactly them', () => {
    const seq = buildEpisodeSequence([segments], { mode: 'episode-end', total: 1 });
    expect(seq.inputIds).toEqual([10, 11, 12, 20, 21, 1, 13, 14, 22, 1, 15, 23, 24, 1]);
    expect(seq.lossMask).toEqual([0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0]);
    expect(seq.logprobs).toEqual([0, 0, 0, -0.1, -0.2, -0.3, 0, 0, -0.4, -0.5, 0, -0.6, -0.7, 0]);
    expect(seq.documentIds.every((d) => d === 0)).toBe(true);
  });

  it('packs documents in order and numbers each token with its document', () => {
    const seq = buildEpisodeSequence([segments.slice(0, 2), segments.slice(2, 4), segments.slice(4)], { mode: 'episode-end', total: 1 });
    expect(seq.inputIds).toEqual([10, 11, 12, 20, 21, 1, 13, 14, 22, 1, 15, 23, 24, 1]);
    expect(seq.documentIds).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
    expect(seq.turnEnds).toEqual([5, 9, 12]);
  });

  it('marks each turn at its last generated token, whatever the rewards', () => {
    const seq = buildEpisodeSequence([segments], { mode: 'turn-ends', perTurn: new Map([[1, 0], [2, 0], [3, 0]]) });
    expect(seq.turnEnds).toEqual([5, 9, 12]);
    expect(seq.turnNumbers).toEqual([1, 2, 3]);
    expect(seq.tokenRewards.every((r) => r === 0)).toBe(true);
  });

  it('puts the episode reward on the last generated token', () => {
    const seq = buildEpisodeSequence([segments], { mode: 'episode-end', total: 0.9 });
    const expected = new Array(14).fill(0);
    expected[12] = 0.9;
    expect(seq.tokenRewards).toEqual(expected);
  });

  it('puts each turn reward on its turn end with use_turn_scores', () => {
    const seq = buildEpisodeSequence([segments], { mode: 'turn-ends', perTurn: new Map([[1, -0.1], [2, 0], [3, 1]]) });
    expect(seq.tokenRewards[5]).toBe(-0.1);
    expect(seq.tokenRewards[9]).toBe(0);
    expect(seq.tokenRewards[12]).toBe(1);
    expect(seq.tokenRewards.filter((r) => r !== 0)).toEqual([-0.1, 1]);
  });

  it('refuses a turn without tokens or with misaligned logprobs', () => {
    expect(() => buildEpisodeSequence([[{ kind: 'generated', ids: [], logprobs: [], turn: 1, text: '' }]], { mode: 'episode-end', total: 0 })).toThrow(/no generated tokens/);
    expect(() => buildEpisodeSequence([[{ kind: 'generated', ids: [1, 2], logprobs: [0], turn: 1, text: '' }]], { mode: 'episode-end', total: 0 })).toThrow(/logprobs/);
  });
});
