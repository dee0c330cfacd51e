import { describe, expect, it } from 'vitest';
import { markActions, runningReturns, splitReply } from '../../renderer/src/replay/reply';

describe('splitReply', () => {
  it('sets think and answer apart, in order, without their tags', () => {
    expect(splitReply('<think> hole at (1,2) </think> <answer>Right || Down</answer>')).toEqual([
      { kind: 'think', text: 'hole at (1,2)', closed: true },
      { kind: 'answer', text: 'Right || Down', closed: true },
    ]);
  });

  it('reads a reply that continues the prompt prefix of the compact template', () => {
    expect(splitReply('Left || Up</answer>', '<answer>')).toEqual([{ kind: 'answer', text: 'Left || Up', closed: true }]);
  });

  it('keeps loose text around the tags and marks a cut reply as not closed', () => {
    expect(splitReply('Sure! <think>go right</think> then <answer>Right || Do')).toEqual([
      { kind: 'text', text: 'Sure! ', closed: true },
      { kind: 'think', text: 'go right', closed: true },
      { kind: 'text', text: ' then ', closed: true },
      { kind: 'answer', text: 'Right || Do', closed: false },
    ]);
  });

  it('gives untagged replies back as one text part, and nothing for an empty one', () => {
    expect(splitReply('((((((')).toEqual([{ kind: 'text', text: '((((((', closed: true }]);
    expect(splitReply('')).toEqual([]);
  });

  it('reads several think/answer pairs and a closing tag with no opening as text', () => {
    const parts = splitReply('</answer><answer>a</answer><answer>b</answer>');
    expect(parts.map((p) => [p.kind, p.text])).toEqual([
      ['text', '</answer>'],
      ['answer', 'a'],
      ['answer', 'b'],
    ]);
  });
});

describe('markActions', () => {
  it('matches action names ignoring case, as the rollout parser does', () => {
    expect(markActions(['right', 'Jump', 'UP'], 2, ['Left', 'Down', 'Right', 'Up'])).toEqual([
      { text: 'right', valid: true },
      { text: 'Jump', valid: false },
      { text: 'UP', valid: true },
    ]);
  });

  it('accepts every free-text action', () => {
    expect(markActions(['3+4*2'], 1, null)).toEqual([{ text: '3+4*2', valid: true }]);
  });

  it('falls back to the stored count without names, and says unknown when the count is partial', () => {
    expect(markActions(['a', 'b'], 2, undefined).map((a) => a.valid)).toEqual([true, true]);
    expect(markActions(['a', 'b'], 0, undefined).map((a) => a.valid)).toEqual([false, false]);
    expect(markActions(['a', 'b'], 1, undefined).map((a) => a.valid)).toEqual([null, null]);
  });
});

describe('runningReturns', () => {
  it('accumulates the turn rewards', () => {
    expect(runningReturns([-0.1, 0, 1])).toEqual([-0.1, -0.1, 0.9]);
    expect(runningReturns([])).toEqual([]);
  });
});
