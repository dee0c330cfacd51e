import { describe, expect, it } from 'vitest';
import { parseResponse, violatesFormat, type ParseOptions } from '../../trainer-core/rollout/parse-response';

const grid: ParseOptions = { enableThink: true, actionSep: '||', maxActionsPerTurn: 3, actionNames: ['Left', 'Down', 'Right', 'Up'] };

describe('parseResponse', () => {
  it('reads a well-formed reply', () => {
    const parsed = parseResponse('<think>go down</think><answer>Down || Right</answer>', grid);
    expect(parsed).toMatchObject({ think: 'go down', answer: 'Down || Right', actions: ['Down', 'Right'], validActions: ['Down', 'Right'], formatOk: true });
    expect(violatesFormat(parsed)).toBe(false);
  });

  it('allows whitespace between the tags and extra text around them', () => {
    const parsed = parseResponse('Sure! <think>\nhmm\n</think>\n  <answer>Up</answer> done.', grid);
    expect(parsed.formatOk).toBe(true);
    expect(parsed.think).toBe('hmm');
    expect(parsed.validActions).toEqual(['Up']);
  });

  it('takes the first answer when several are given', () => {
    expect(parseResponse('<think>a</think><answer>Up</answer><think>b</think><answer>Down</answer>', grid).validActions).toEqual(['Up']);
  });

  it('marks malformed replies: missing think, unclosed answer, text in between', () => {
    for (const text of ['<answer>Up</answer>', '<think>x</think><answer>Up', '<think>x</think> so <answer>Up</answer>', 'Up']) {
      const parsed = parseResponse(text, grid);
      expect(parsed.formatOk, text).toBe(false);
      expect(parsed.actions).toEqual([]);
      expect(violatesFormat(parsed)).toBe(true);
    }
  });

  it('matches action names case-insensitively and returns canonical names', () => {
    expect(parseResponse('<think></think><answer>lEFT||UP|| down </answer>', grid).validActions).toEqual(['Left', 'Up', 'Down']);
  });

  it('drops unknown actions and flags the turn', () => {
    const parsed = parseResponse('<think></think><answer>Left || Jump || Up</answer>', grid);
    expect(parsed.actions).toEqual(['Left', 'Jump', 'Up']);
    expect(parsed.validActions).toEqual(['Left', 'Up']);
    expect(violatesFormat(parsed)).toBe(true);
  });

  it('cuts too many actions without flagging the turn (as RAGEN)', () => {
    const parsed = parseResponse('<think></think><answer>Up||Up||Left||Down||Right</answer>', grid);
    expect(parsed.actions).toEqual(['Up', 'Up', 'Left']);
    expect(parsed.actionsCut).toBe(2);
    expect(violatesFormat(parsed)).toBe(false);
  });

  it('does not split on other separators', () => {
    for (const answer of ['Left, Up', 'Left | Up', 'Left Up', 'Left;Up']) {
      const parsed = parseResponse(`<think></think><answer>${answer}</answer>`, grid);
      expect(parsed.actions, answer).toEqual([answer]);
      expect(parsed.validActions, answer).toEqual([]);
    }
    const comma = parseResponse('<think></think><answer>Left, Up</answer>', { ...grid, actionSep: ',' });
    expect(comma.validActions).toEqual(['Left', 'Up']);
  });

  it('treats an empty answer as no valid action', () => {
    const parsed = parseResponse('<think>x</think><answer> || </answer>', grid);
    expect(parsed.formatOk).toBe(true);
    expect(parsed.actions).toEqual([]);
    expect(violatesFormat(parsed)).toBe(true);
  });

  it('reads the answer tag alone when thinking is off', () => {
    const options = { ...grid, enableThink: false };
    expect(parseResponse('<answer>Right</answer>', options).validActions).toEqual(['Right']);
    const withThink = parseResponse('<think>t</think><answer>Right</answer>', options);
    expect(withThink.think).toBe('');
    expect(withThink.validActions).toEqual(['Right']);
  });

  it("removes tags and chat markers inside the thinking and the answer, as RAGEN does", () => {
    // The prompt opened <answer> and the model wrote its own: the reply still reads.
    const repeated = parseResponse('<answer><answer>Left</answer>', { ...grid, enableThink: false });
    expect(repeated.validActions).toEqual(['Left']);
    expect(violatesFormat(repeated)).toBe(false);
    const marked = parseResponse('<think><think>go left</think><answer>Left || Up<|im_end|></answer>', grid);
    expect([marked.think, marked.answer, marked.validActions]).toEqual(['go left', 'Left || Up', ['Left', 'Up']]);
  });

  it('passes free-text actions through as written', () => {
    const parsed = parseResponse('<think></think><answer>3 + 4 - 2</answer>', { ...grid, actionNames: null });
    expect(parsed.validActions).toEqual(['3 + 4 - 2']);
  });
});
