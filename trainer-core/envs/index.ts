// The environments' public surface: interface, registry, option handling, built-ins.
export type { Env, EnvSpec, EnvInfo, StepResult, StateRender, GridCell, Cell } from './types';
export { EnvConfigError } from './errors';
export { listEnvSpecs, getEnvSpec, resolveEnvSpec, isEnvModulePath } from './registry';
export { loadCustomEnvSpec } from './custom-loader';
export { parseEnvOptions, createEnv, describeEnvOptions, envOptionKeys, type EnvOptionInfo } from './options';
export { matchActionName } from './actions';
export { FrozenLakeEnv, frozenLakeSpec } from './frozen-lake';
export { SokobanEnv, sokobanSpec } from './sokoban';
export { CountdownEnv, countdownSpec } from './countdown';
export { BanditEnv, banditSpec, banditRevSpec } from './bandit';
export { MathQAEnv, mathqaSpec } from './mathqa';
