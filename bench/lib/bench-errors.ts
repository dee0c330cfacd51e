import { closestName } from '../../trainer-core/closest-name';

/**
 * A benchmark's user mistakes (a bad argument, a config that cannot run): `npm run bench` says
 * them in one line and exits 2, as `turnlab` does, instead of printing a stack.
 */
export class BenchArgumentError extends Error {
  override name = 'BenchArgumentError';
}

/** The errors a user fixes by changing the command: a bench's arguments, a config, an override, the envs they build or the backend asked for. */
export function isUserError(error: unknown): error is Error {
  return error instanceof Error && ['BenchArgumentError', 'ConfigError', 'EnvConfigError', 'EnvModuleError', 'BackendError'].includes(error.name);
}

/** The option a misspelt one meant: one it begins (`--fork` of `--fork-iterations`), else the fewest edits away. */
export function closestOption(typed: string, options: readonly string[]): string | undefined {
  return options.find((option) => typed.length > 2 && option.startsWith(typed)) ?? closestName(typed, options);
}
