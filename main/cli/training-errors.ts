import { UserError } from './errors';

/**
 * Errors a user fixes by changing input (config, checkpoint, env module, run name) become
 * UserErrors: exit code 2 and one line. Checked by name so registering commands does not load
 * trainer-core.
 */
const USER_FACING = new Set(['ConfigError', 'CheckpointError', 'EnvConfigError', 'EnvModuleError', 'StoreError', 'BackendError', 'HfModelError', 'ChatTemplateError', 'BackendMemoryError', 'BundleError', 'SlurmError', 'RunLabelError']);

export function asTrainingUserError(error: unknown): unknown {
  if (error instanceof Error && USER_FACING.has(error.name)) return new UserError(error.message.replace(/\n/g, '; '));
  return error;
}
