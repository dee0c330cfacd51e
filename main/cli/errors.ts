/**
 * An error the user can fix (unknown run id, bad flag, missing data folder). The CLI prints its
 * message as one line on stderr and exits with code 2; anything else is a bug and exits 1.
 */
export class UserError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}
