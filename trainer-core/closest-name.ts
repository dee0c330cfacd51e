import { distance } from 'fastest-levenshtein';

/** What a name is compared as: case and `-` against `_` are how people misremember names, not typos. */
function normal(name: string): string {
  return name.toLowerCase().replaceAll('-', '_');
}

/**
 * The candidate nearest to `typed`, for "did you mean" hints. A candidate equal but for case or
 * `-` against `_` wins (`GRPO` means `grpo`, though `gae` is fewer edits away); otherwise the one
 * fewest edits away with case ignored, the first of equals. Undefined when there is none.
 */
export function closestName(typed: string, candidates: readonly string[]): string | undefined {
  const target = normal(typed);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(target, normal(candidate));
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
