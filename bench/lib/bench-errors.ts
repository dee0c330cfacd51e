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

