import { describe, expect, it } from 'vitest';
import { tagsFromText, tagsText } from '../../renderer/src/runs/tag-text';

describe("the Edit panel's tags field", () => {
  const sweepTag = 'seeds:bandit-lr=1e-3,gamma=0.9';

  it("keeps a tag that holds a comma whole (a two-key sweep's seed group)", () => {
    const current = ['baseline', sweepTag];
    expect(tagsFromText(tagsText(current), current)).toEqual(current);
    // Another tag typed after it, one removed: the sweep's tag stays one tag, in its place.
    expect(tagsFromText(`${sweepTag}, new , `, current)).toEqual([sweepTag, 'new']);
    expect(tagsFromText('a, b,,c', current)).toEqual(['a', 'b', 'c']);
  });

  it('splits on commas and drops empty and repeated tags', () => {
    expect(tagsFromText(' x ,y, x,', [])).toEqual(['x', 'y']);
    expect(tagsFromText('', ['a'])).toEqual([]);
  });
});
