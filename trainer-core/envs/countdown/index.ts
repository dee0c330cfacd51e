// Countdown: the registry entry and the folder's public names.
import type { EnvSpec } from '../types';
import { CountdownEnv } from './env';
import { countdownOptionsSchema, type CountdownOptions } from './options';

export { CountdownEnv } from './env';
export { countdownOptionsSchema, type CountdownOptions } from './options';
export { parseExpression, scoreCountdown } from './expression';
export { generateCountdown, type CountdownInstance } from './generator';
export { solveCountdown } from './solver';

export const countdownSpec: EnvSpec<CountdownOptions> = {
  type: 'countdown',
  description: 'Countdown: one equation that reaches the target using every number once (1 correct, 0.1 well-formed, 0 otherwise)',
  optionsSchema: countdownOptionsSchema,
  create: (options) => new CountdownEnv(options),
  multiAction: false,
};
