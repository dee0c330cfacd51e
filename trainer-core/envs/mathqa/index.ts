// MathQA (MetaMathQA): the registry entry and the folder's public names.
import type { EnvSpec } from '../types';
import { MathQAEnv } from './env';
import { mathqaOptionsSchema, type MathQAOptions } from './options';

export { MathQAEnv } from './env';
export { mathqaOptionsSchema, type MathQAOptions } from './options';
export { extractMetaMathAnswer, normalizeMathAnswer } from './dataset';

export const mathqaSpec: EnvSpec<MathQAOptions> = {
  type: 'metamathqa',
  description: 'MathQA: a math question per seed (MetaMathQA JSONL or generated word problems), exact-match answer',
  optionsSchema: mathqaOptionsSchema,
  create: (options) => new MathQAEnv(options),
  multiAction: false,
};
