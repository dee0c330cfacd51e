// trainer-core's public surface for main/ and the `turnlab` command: reading and checking
// configs, environments, what a rollout shows, and the shapes a run reports through its sink.
// Importing it loads no TensorFlow.js (tests/architecture checks), so the workbench and quick
// commands start fast; training, evaluation, checkpoints and models are in ./compute.ts, which
// callers import when they need tensors (lazily, with `await import`, where a command may not).

// Configs
export {
  loadRunConfig,
  loadRunConfigWithSource,
  runConfigFromYaml,
  parseRunConfig,
  parseRunConfigWithSource,
  resolvedConfigToYaml,
  DEFAULTS_YAML,
  ConfigError,
  type ConfigIssue,
  type RunConfig,
  type RunConfigWithSource,
  type CustomEnvConfig,
  configForTrainStage,
  trainStageTags,
  MAX_ROLLOUT_EPISODES,
  evaluationOverrideNotes,
} from './config';
export { formatPath } from './config/errors';
export { defaultRunConfigInput } from './config/defaults';
export { policyFirst } from './config/schema-walk';
export { YamlSource } from './config/yaml-source';
export { TEMPLATES, customEnvSchema, type StoredRunConfig } from './config/schema';
export { LORA_MODULES, resolveTargetModules, type LoraModule } from './config/lora-targets';

// Advantage estimators
export { registerEstimator, estimatorNames, estimatorNamed, needsCritic, needsGroups } from './algo/estimator-registry';
export { defineEstimator, type AdvantageEstimator, type AdvantageInput, type EstimatorSettings } from './algo/estimator';

// Environments
export {
  EnvConfigError,
  listEnvSpecs,
  getEnvSpec,
  resolveEnvSpec,
  isEnvModulePath,
  parseEnvOptions,
  describeEnvOptions,
  matchActionName,
  type Env,
  type EnvSpec,
  type StepResult,
  type StateRender,
} from './envs';
export { readCustomEnvSpec } from './envs/custom-loader';
export { checkEnv, type CheckReport } from './envs/env-check';

// Rollouts: environments of a run, prompts, parsing replies
export { loadEnvSpecResolver, withAbsoluteModulePaths, sourceWithAbsoluteModulePaths } from './rollout/env-specs';
export { EnvStateManager, type EnvSpecResolver } from './rollout/es-manager';
export { startRunEnvironments } from './rollout/run-environments';
export { matchActionNames, parseResponse, violatesFormat, type ParsedResponse } from './rollout/parse-response';
export { createTemplate, responsePrefixOf } from './rollout/templates';

// What a run reports (the sink main/ stores), and shapes of results computed in ./compute.ts
export type { TrainingSink, RunStartInfo, RunEndStatus, EpisodeReport, TurnReport, CheckpointReport, ExpertIterationRound, WarmUpPhase } from './train/sink';
export type { EvaluationResult } from './train/evaluate';
export type { TrainOptions, TrainResult } from './train/train-options';
export type { BackendChoice } from './backend';
export type { HfDecoder } from './model/hf/decoder';
export type { HfModelFolder } from './model/hf/load';
export { HfModelError, parseHfConfig, baseParameterCount } from './model/hf/config';
export { findInHubCache, looksLikeHubId } from './model/hf/hub-cache';
export { readCheckpointFiles } from './train/checkpoint-files';
export { evaluationSeedNote } from './train/train-seeds';
export { BACKENDS } from './backend-names';

// Folders a user names (data folders, export targets), made without Node's recursive mkdir
export { makeFolder, FolderError, notANewFolder } from './make-folder';
export { closestName } from './closest-name';
