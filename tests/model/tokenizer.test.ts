import { describe, expect, it } from 'vitest';
import { END_OF_TURN_TOKEN, WordByteTokenizer, fitTokenizer } from '../../trainer-core/model/tokenizer';

const corpus = [
  'You are on a frozen lake. Reach the goal G without falling into a hole H.',
  'Actions: Left, Down, Right, Up. <think>I should go Right</think><answer>Right</answer>',
  '<|user|>Use the numbers 3 5 7 to make 22.<|eot|><|assistant|><answer>3*5+7</answer><|eot|>',
  'P _ _ G\n_ H _ _\nThe box # is on target.',
];

describe('WordByteTokenizer', () => {
  const tokenizer = fitTokenizer([...corpus, ...corpus], { maxVocab: 512 });

  it('round-trips any text losslessly, including text it never saw', () => {
    const samples = [...corpus, 'Zebra \u00e9t\u00e9 \u6f22\u5b57 \ud83d\ude00 \t tabs\r\n', '', '   ', '<answer', '<|eot|x', '\u0301\u0301'];
    for (const text of samples) expect(tokenizer.decode(tokenizer.encode(text))).toBe(text);
  });

  it('encodes specials as one token each and fitted words as one token', () => {
    const ids = tokenizer.encode('<think> Right</think><|eot|>');
    expect(ids.length).toBe(4);
    expect(ids[3]).toBe(tokenizer.endOfTurnId);
    expect(tokenizer.tokenText(ids[1])).toBe(' Right');
    expect(tokenizer.decode([tokenizer.endOfTurnId])).toBe(END_OF_TURN_TOKEN);
  });

  it('falls back to bytes for unknown pieces and keeps digits separate', () => {
    const unknown = tokenizer.encode('Xylophone');
    expect(unknown.length).toBe('Xylophone'.length);
    expect(unknown.every((id) => tokenizer.tokenText(id).startsWith('<0x'))).toBe(true);
    expect(tokenizer.encode('123').length).toBe(3);
  });

  it('keeps the capitals of a grid render one cell per token, and capitalised words whole', () => {
    const grid = fitTokenizer(['_OOG\nPO__\n#XS_\n', 'Down Left Target DOWN', 'Down Left Target DOWN']);
    const pieces = (text: string) => grid.encode(text).map((id) => grid.tokenText(id));
    expect(pieces('_OOG\n')).toHaveLength(5);
    expect(pieces('PO__')).toHaveLength(4);
    expect(pieces('#XS_')).toHaveLength(4);
    expect(pieces('Down Left')).toEqual(['Down', ' Left']);
    expect(grid.decode(grid.encode('DOWN Left\u00c9t\u00e9'))).toBe('DOWN Left\u00c9t\u00e9');
  });

  it('has pad 0 and end-of-turn 1, and ids below vocabSize', () => {
    expect(tokenizer.padId).toBe(0);
    expect(tokenizer.endOfTurnId).toBe(1);
    for (const text of corpus) for (const id of tokenizer.encode(text)) expect(id).toBeLessThan(tokenizer.vocabSize);
  });

  it('respects maxVocab and minCount, deterministically', () => {
    const small = fitTokenizer(corpus, { maxVocab: 9 + 256 + 3, minCount: 1 });
    expect(small.vocabSize).toBe(9 + 256 + 3);
    expect(fitTokenizer(corpus, { minCount: 1 }).toJSON()).toEqual(fitTokenizer(corpus, { minCount: 1 }).toJSON());
    expect(() => fitTokenizer(corpus, { maxVocab: 100 })).toThrow(/maxVocab 100 is too small/);
  });

  it('survives a JSON round trip and rejects foreign files', () => {
    const restored = WordByteTokenizer.fromJSON(JSON.parse(JSON.stringify(tokenizer.toJSON())));
    expect(restored.vocabSize).toBe(tokenizer.vocabSize);
    for (const text of corpus) expect(restored.encode(text)).toEqual(tokenizer.encode(text));
    expect(() => WordByteTokenizer.fromJSON({ type: 'bpe' })).toThrow(/Not a TurnLab tokenizer/);
    expect(() => WordByteTokenizer.fromJSON({ ...tokenizer.toJSON(), version: 1 })).toThrow(/older TurnLab .* Train a new run/);
    expect(() => tokenizer.decode([tokenizer.vocabSize])).toThrow(/outside the vocabulary/);
  });

  it('supports extra special tokens', () => {
    const custom = fitTokenizer(corpus, { extraSpecialTokens: ['<tool>'] });
    expect(custom.encode('<tool>')).toHaveLength(1);
  });
});
