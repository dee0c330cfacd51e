// The Edit panel shows a run's tags as one comma-separated line. Some tags hold commas of their
// own (a sweep over two keys tags its runs `seeds:bandit-lr=1e-3,gamma=0.9`): split naively on
// save, such a tag became two and the run left its seed group.

/** The tags as the panel's field shows them. */
export function tagsText(tags: readonly string[]): string {
  return tags.join(', ');
}

/**
 * The tags a field's text names: the run's own tags that hold a comma are kept whole where the
 * text still holds them; the rest is split on commas, trimmed, empty parts dropped.
 */
export function tagsFromText(text: string, current: readonly string[]): string[] {
  const whole = current.filter((tag) => tag.includes(',')).sort((a, b) => b.length - a.length);
  const parts: Array<{ at: number; tag: string }> = [];
  let rest = text;
  for (const tag of whole) {
    const at = rest.indexOf(tag);
    if (at < 0) continue;
    parts.push({ at, tag });
    // Blanked with commas of the same length, so later positions still order the tags as typed.
    rest = `${rest.slice(0, at)}${','.repeat(tag.length)}${rest.slice(at + tag.length)}`;
  }
  let offset = 0;
  for (const piece of rest.split(',')) {
    if (piece.trim() !== '') parts.push({ at: offset, tag: piece.trim() });
    offset += piece.length + 1;
  }
  return [...new Set(parts.sort((a, b) => a.at - b.at).map((p) => p.tag))];
}
