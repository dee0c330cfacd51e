/** Which benchmark modules `npm run bench -- ...` names. */
/**
 * Modules that read their own arguments from process.argv (`learning frozenlake --seeds 0,1`):
 * everything after their name is theirs, even a word that also names a module (the frozenlake
 * config is not the frozenlake benchmark).
 */
const TAKES_ARGUMENTS = new Set(['learning', 'iteration', 'frozenlake', 'llm', 'lm-head']);

export function benchmarksNamed(args: readonly string[], available: ReadonlySet<string>): string[] {
  const named: string[] = [];
  for (const arg of args) {
    if (!available.has(arg)) {
      if (named.length === 0) named.push(arg); // unknown: reported below
      continue;
    }
    named.push(arg);
    if (TAKES_ARGUMENTS.has(arg)) break;
  }
  return named;
}
