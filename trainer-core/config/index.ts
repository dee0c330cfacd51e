export { loadRunConfig, loadRunConfigWithSource, runConfigFromYaml, parseRunConfig, parseRunConfigWithSource, resolvedConfigToYaml, deepMerge, type RunConfigWithSource } from './load';
export { DEFAULTS_YAML, defaultRunConfigInput, differsFromDefault } from './defaults';
export { ConfigError, type ConfigIssue } from './errors';
export { MAX_ROLLOUT_EPISODES } from './checks';
export { resolveReferences } from './references';
export { parseOverride, type Override } from './overrides';
export { evaluationOverrideNotes } from './evaluation-keys';
export { configForTrainStage, trainStageAt, trainStageEnvConfigs, trainStageTags } from './train-stages';
export {
  RunConfigSchema,
  type RunConfig,
  type CustomEnvConfig,
  type EnvSplitConfig,
  type AgentProxyConfig,
  type RewardNormalizationConfig,
} from './schema';
