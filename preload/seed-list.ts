// Seed groups: runs started together that differ only by `trainer.seed`. Pure, so the CLI,
// the run manager and the workbench's form and Runs view read seeds and groups the same way.

/** Runs of one group carry this tag, followed by the group's name. */
export const SEED_GROUP_PREFIX = 'seeds:';

/** Most runs one group may hold: a typo such as `--seeds 1000` should not queue a thousand runs. */
export const MAX_GROUP_SEEDS = 64;

/**
 * The seeds `text` names: `5` means seeds 0 to 4, `1,2,3` those seeds. Throws with a message fit
 * to show beside the field or on the command line.
 */
export function parseSeeds(text: string): number[] {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) {
    const count = Number(trimmed);
    // A bare number is a count, so one seed of choice needs a list of one (`7,`); 0 is the likeliest to be meant so.
    if (count === 0) throw new Error(`a count of seeds is 1 to ${MAX_GROUP_SEEDS}, not 0; seed 0 alone is 1 (a count starts at seed 0), any one seed a list of one: 0,`);
    if (count > MAX_GROUP_SEEDS) throw new Error(`a count of seeds is 1 to ${MAX_GROUP_SEEDS}, not ${trimmed}`);
    return Array.from({ length: count }, (_, i) => i);
  }
  const one = /^(-?\d+)\s*,$/.exec(trimmed);
  if (one) return [Number(one[1])];
  const parts = trimmed.split(',').map((p) => p.trim());
  if (parts.length < 2 || parts.some((p) => !/^-?\d+$/.test(p))) {
    throw new Error(`'${text}' is neither a count of seeds (5 means 0..4) nor a comma-separated list of seeds (1,2,3; one seed: 7,)`);
  }
  const seeds = parts.map(Number);
  if (new Set(seeds).size !== seeds.length) throw new Error(`seed list '${text}' names a seed twice`);
  if (seeds.length > MAX_GROUP_SEEDS) throw new Error(`a seed group holds at most ${MAX_GROUP_SEEDS} runs`);
  return seeds;
}

export function seedRunName(base: string, seed: number): string {
  return `${base}-s${seed}`;
}

export function seedGroupTag(group: string): string {
  return `${SEED_GROUP_PREFIX}${group}`;
}

/** The seed group a run's tags place it in, or null. */
export function seedGroupOf(tags: readonly string[]): string | null {
  const tag = tags.find((t) => t.startsWith(SEED_GROUP_PREFIX));
  return tag === undefined ? null : tag.slice(SEED_GROUP_PREFIX.length);
}

/**
 * A group name not yet used by any run: `base`, else `base#2`, `base#3`… Starting the same
 * config twice gives two groups, not one of doubled seeds.
 */
export function freshGroupName(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  let n = 2;
  while (used.has(`${base}#${n}`)) n += 1;
  return `${base}#${n}`;
}
