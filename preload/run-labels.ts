/**
 * What a run's name and tags may be, checked the same wherever they are set: a rename or retag
 * (workbench, `turnlab rename`/`tag`), a new run (`turnlab train --name/--tag`, the config's
 * `trainer.experiment_name`, the workbench's New run), a fork and a seed group's runs.
 * Commands name a run by id or name and take tags as option values, so a name that reads as an
 * id or an option, or a tag that reads as an option, would address something else. Shared by
 * main and the workbench.
 */

export const RUN_LABEL_LIMITS = { name: 200, tag: 100, tags: 50 } as const;

/** Refused input for a run's name or tags; the CLI and API show the message as it is. */
export class RunLabelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunLabelError';
  }
}

/** Why `name` (trimmed) cannot name a run, or null when it can. */
export function runNameProblem(name: string): string | null {
  if (name.length === 0) return 'a run name cannot be empty';
  if (/^(\d+|ckpt:\d+)$/.test(name)) return `a run name cannot be '${name}': commands would read it as ${name.startsWith('ckpt:') ? 'a checkpoint' : 'a run id'}; add a word (run-${name.replace('ckpt:', '')})`;
  if ([...name].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return 'a run name is one line of text: no line breaks, tabs or control characters';
  if (name.startsWith('-')) return `a run name cannot start with '-': commands would read it as an option; drop the dash (${name.replace(/^-+/, '') || 'run'})`;
  if (name.length > RUN_LABEL_LIMITS.name) return `a run name holds at most ${RUN_LABEL_LIMITS.name} characters (this one has ${name.length})`;
  return null;
}

/**
 * Why a run cannot have `tags` (trimmed, each once), or null. Only tags not in `kept` (those the
 * run has already, perhaps from an older TurnLab or an import) are held to the dash rule, so
 * such a run can still be edited and the tag removed.
 */
export function tagsProblem(tags: readonly string[], kept: readonly string[] = []): string | null {
  const long = tags.find((tag) => tag.length > RUN_LABEL_LIMITS.tag);
  // The preview by code points: a cut inside an emoji's surrogate pair would print a broken character.
  if (long !== undefined) return `each of the tags holds at most ${RUN_LABEL_LIMITS.tag} characters ('${[...long].slice(0, 20).join('')}...' has ${long.length})`;
  const dashed = tags.find((tag) => tag.startsWith('-') && !kept.includes(tag));
  if (dashed !== undefined) return `a tag cannot start with '-' ('${dashed}'): commands would read it as an option; drop the dash (${dashed.replace(/^-+/, '') || 'tag'})`;
  if (tags.length > RUN_LABEL_LIMITS.tags) return `a run holds at most ${RUN_LABEL_LIMITS.tags} tags (this would make ${tags.length})`;
  return null;
}

/** Tags trimmed, empty ones dropped, each once, in the order given. */
export function normaliseTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim()).filter((t) => t.length > 0))];
}

/**
 * Refuses a new run's name (when it is given one) and tags before anything is created; `source` says where the name
 * came from (`--name`, `trainer.experiment_name`) so the message names what to change.
 */
export function checkNewRunLabels(name: string | undefined, tags: readonly string[], source: string): void {
  const nameProblem = name === undefined ? null : runNameProblem(name.trim());
  if (nameProblem !== null) throw new RunLabelError(`${source}: ${nameProblem}`);
  const tagProblem = tagsProblem(normaliseTags(tags));
  if (tagProblem !== null) throw new RunLabelError(`--tag: ${tagProblem}`);
}
