// The two-armed bandit and its reversed variant: the registry entries and the folder's public names.
import type { EnvSpec } from '../types';
import { BanditEnv } from './env';
import { banditOptionsSchema, banditOptionsSchemaDefault, type BanditOptions } from './options';

export { BanditEnv } from './env';
export { banditOptionsSchemaDefault, type BanditOptions } from './options';

export const banditSpec: EnvSpec<BanditOptions> = {
  type: 'bandit',
  description: 'Two-armed bandit: Phoenix pays 0.1 always, Dragon 1.0 with probability 0.25; order shuffled per reset',
  optionsSchema: banditOptionsSchemaDefault,
  create: (options) => new BanditEnv(options),
  multiAction: false,
};

/** The reversed variant (RAGEN's Bandit-Rev idea): the same game with the arms' names swapped. */
export const banditRevSpec: EnvSpec<BanditOptions> = {
  type: 'bandit_rev',
  description: 'Two-armed bandit with the names swapped: Dragon pays 0.1 always, Phoenix 1.0 with probability 0.25',
  optionsSchema: banditOptionsSchema('Dragon', 'Phoenix'),
  create: (options) => new BanditEnv(options),
  multiAction: false,
};
