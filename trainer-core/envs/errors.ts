/**
 * A configuration mistake the user can fix (unknown env type, bad option, unusable custom env
 * module, unreadable data file). Callers that talk to people (CLI, API) show its message as is.
 */
export class EnvConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvConfigError';
  }
}
