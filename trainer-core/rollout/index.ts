export type { Tokenizer } from './tokenizer';
export { parseResponse, matchActionNames, violatesFormat, type ParseOptions, type ParsedResponse } from './parse-response';
export {
  createTemplate,
  ragenTemplate,
  compactTemplate,
  formatReward,
  type PromptTemplate,
  type TemplateName,
  type TemplateOptions,
  type ChatMessage,
  type ChatRole,
  type EnvPromptInfo,
  type TurnPromptInfo,
} from './templates';
export { ContextManager, nextContextTurn, type ContextManagerOptions, type ContextTurn, type TurnReply, type Segment } from './context-manager';
export { buildEpisodeSequence, emptyEpisodeSequence, placeRewards, type EpisodeSequence, type RewardPlacement } from './episode-sequence';
export {
  EnvStateManager,
  type EnvStateManagerOptions,
  type EnvStateManagerState,
  type EnvSpecResolver,
  type EnvEntry,
  type EpisodeStatus,
  type TurnOutcome,
  type ActionOutcome,
  type EndReason,
  type Split,
} from './es-manager';
export { normalizeScores, groupingKeys, type RewardGrouping, type RewardMethod, type EpisodeGroupKey } from './reward-normalization';
export { filterGroupsByRewardStd, groupScores, type GroupScores, type RolloutFilterResult, type RolloutFilterType } from './rollout-filter';
export { computeRolloutMetrics, episodeMetricValues, type EpisodeSummary } from './metrics';
export {
  runRollout,
  rolloutSettingsFromConfig,
  createContextManager,
  type ResponseGenerator,
  type GenerateOptions,
  type GeneratedResponse,
  type SamplingOptions,
  type RolloutSettings,
  type RolloutParams,
  type RolloutResult,
  type EpisodeRecord,
  type TurnRecord,
} from './rollout-loop';
export { loadEnvSpecResolver } from './env-specs';
