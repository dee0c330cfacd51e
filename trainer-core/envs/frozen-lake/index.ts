// FrozenLake: the registry entry and the folder's public names.
import type { EnvSpec } from '../types';
import { FrozenLakeEnv } from './env';
import { frozenLakeOptionsSchema, type FrozenLakeOptions } from './options';

export { FrozenLakeEnv } from './env';
export { frozenLakeOptionsSchema, type FrozenLakeOptions } from './options';
export { generateLakeMap } from './generator';
export { hasPath, parseLakeMap, type LakeMap } from './map';
export { LAKE_ACTIONS, lakeMove, lakeSuccessProbability, shortestLakePath, slipDirections } from './solver';
export { LakeTurnPlanner } from './planner';

export const frozenLakeSpec: EnvSpec<FrozenLakeOptions> = {
  type: 'frozen_lake',
  description: 'FrozenLake: walk to the goal on a random lake without falling into a hole (gym rules, RAGEN text)',
  optionsSchema: frozenLakeOptionsSchema,
  create: (options) => new FrozenLakeEnv(options),
  multiAction: true,
};
