import { turnShapingBonuses, type TurnShaping } from '../algo/turn-shaping';
import type { RunConfig } from '../config/schema';
import type { StateRender } from '../envs/types';
import { withChatMarkers } from './chat-markers';
import { ContextManager, nextContextTurn, type ContextTurn } from './context-manager';
import { buildEpisodeSequence, emptyEpisodeSequence, type EpisodeSequence, type RewardPlacement } from './episode-sequence';
import type { EndReason, EnvStateManager, Split, TurnOutcome } from './es-manager';
import { computeRolloutMetrics, episodeMetricValues, type EpisodeSummary } from './metrics';
import { groupingKeys, normalizeScores, type RewardGrouping, type RewardMethod } from './reward-normalization';
import { templateOf, type ChatMessage, type EnvPromptInfo } from './templates';
import type { Tokenizer } from './tokenizer';
import { endsWithIds } from '../token-ids';
import { isEstimatorName, needsTurnRewards } from '../algo/estimator-registry';

/**
 * Drives one multi-turn rollout for every env of a manager: batch the contexts of the episodes
 * still running, generate, parse, step, repeat; then build one training sequence per episode.
 * Model-agnostic: anything implementing ResponseGenerator can play.
 */

export interface SamplingOptions {
  temperature: number;
  topP: number;
  /** -1 or 0: no top-k cut. */
  topK: number;
  /** False: greedy decoding. */
  doSample: boolean;
}

export interface GenerateOptions extends SamplingOptions {
  /** Most new tokens for each prompt, same order as the prompts (context room can make it smaller). */
  maxNewTokens: number[];
  /** The tokenizer's end-of-turn id: generation of a prompt stops after producing it. */
  stopTokenId: number;
  /** Generation also stops once a reply's ids end with one of these (the encoded stop strings). */
  stopSequences: number[][];
  /**
   * The episode (env id) of each prompt, same order: a prompt extends its episode's previous
   * prompt and reply, so a generator may keep what it computed for them (prefix reuse).
   */
  rowKeys: number[];
}

export interface GeneratedResponse {
  /** New ids only, ending with `stopTokenId` or a stop sequence unless cut at `maxNewTokens`; never empty. */
  tokenIds: number[];
  /** Log-probability of each new id under the sampling distribution. */
  logprobs: number[];
}

export interface ResponseGenerator {
  /** One response per prompt; each prompt is the full token context of one episode so far. */
  generate(prompts: number[][], options: GenerateOptions): Promise<GeneratedResponse[]>;
  /** The episode of this row key ended: what was kept for it can go. */
  forget?(rowKey: number): void;
  /** The rollout ended (or failed): free everything kept for it. */
  release?(): void;
  /**
   * The longest token context the generator's model takes. A pretrained folder's
   * `max_position_embeddings` may be below `model.context_length`: episodes end at the lower.
   */
  readonly contextLength?: number;
}

export interface RolloutSettings {
  split: Split;
  sampling: SamplingOptions;
  /** Most tokens generated per turn. */
  responseLength: number;
  /** Strings that end a reply besides the end-of-turn token (vLLM's `stop`); kept in the reply. */
  stop: string[];
  /** Longest token context the model takes; an episode whose next context cannot fit ends. */
  maxSequenceLength: number;
  useTurnScores: boolean;
  /** `algorithm.turn_shaping` on the train split (null on validation): needs the episodes' potentials. */
  turnShaping?: TurnShaping | null;
  rewardNormalization: { grouping: RewardGrouping; method: RewardMethod };
}

export interface TurnRecord extends TurnOutcome {
  /** What the model was shown this turn. */
  observationBefore: string;
  /**
   * The turn's state as the prompt showed it (the template's turn text): the observation, and
   * the actions left where the template states them. GiGPO's step groups key on it, so a board
   * reached with different budgets left is two states when the policy could tell them apart.
   */
  stateShown: string;
  stateBefore: StateRender;
  responseText: string;
  generatedIds: number[];
  logprobs: number[];
  /** The reply hit the token limit without an end-of-turn id or stop string. */
  cut: boolean;
}

export interface EpisodeRecord {
  split: Split;
  envId: number;
  groupId: number;
  tag: string;
  seed: number;
  turns: TurnRecord[];
  initialObservation: string;
  initialState: StateRender;
  numActions: number;
  success: boolean;
  endReason: EndReason;
  /** Sum of env rewards over the turns. */
  envScore: number;
  /** Sum of format penalties over the turns. */
  penalty: number;
  /** envScore + penalty: the episode's reward before normalisation. */
  score: number;
  /** The reward placed into the sequence (normalised env score plus penalty, and any shaping bonus). */
  trainReward: number;
  /** The turns' summed shaping bonus (`algorithm.turn_shaping`), which trainReward includes; absent without shaping. */
  shapingBonus?: number;
  /** The training sequence (empty when the first context already did not fit). */
  sequence: EpisodeSequence;
  messages: ChatMessage[];
  /** Per-episode metric values (success, num_actions, ...), for storage. */
  metrics: Record<string, number>;
}

export interface RolloutResult {
  split: Split;
  episodes: EpisodeRecord[];
  /** `<split>/<tag>/<metric>` means over the rollout. */
  metrics: Record<string, number>;
}

export function rolloutSettingsFromConfig(cfg: RunConfig, split: Split): RolloutSettings {
  const rollout = cfg.actor_rollout_ref.rollout;
  const sampling =
    split === 'train'
      ? { temperature: rollout.temperature, topP: rollout.top_p, topK: rollout.top_k, doSample: true }
      : {
          temperature: rollout.val_kwargs.temperature,
          topP: rollout.val_kwargs.top_p,
          topK: rollout.val_kwargs.top_k,
          doSample: rollout.val_kwargs.do_sample,
        };
  return {
    split,
    sampling,
    responseLength: rollout.response_length,
    stop: rollout.stop,
    maxSequenceLength: cfg.model.context_length,
    // Only a train split is trained on, and an evaluation may name an estimator it never registers.
    useTurnScores: cfg.agent_proxy.use_turn_scores || (split === 'train' && isEstimatorName(cfg.algorithm.adv_estimator) && needsTurnRewards(cfg.algorithm.adv_estimator)),
    turnShaping: split === 'train' ? cfg.algorithm.turn_shaping : null,
    rewardNormalization: cfg.agent_proxy.reward_normalization,
  };
}

export function createContextManager(cfg: RunConfig, tokenizer: Tokenizer): ContextManager {
  const proxy = cfg.agent_proxy;
  const words = templateOf(cfg);
  const template = tokenizer.chat ? withChatMarkers(words, tokenizer.chat) : words;
  return new ContextManager(template, tokenizer, {
    maxContextWindow: proxy.max_context_window,
    enableThink: proxy.enable_think,
    actionSep: proxy.action_sep,
    maxActionsPerTurn: proxy.max_actions_per_turn,
  });
}

/** The context of an episode's first turn: the env's first observation and the whole action budget. */
export function firstContextTurn(es: EnvStateManager, envId: number): ContextTurn {
  return { turn: 1, observation: es.episode(envId).initialObservation, actionsLeft: es.entries[envId].maxActionsPerTraj };
}

/**
 * Tokens a reply may take after a prompt of `promptLength` ids. One token of the context stays
 * free for the end-of-turn id that closes a reply cut at the limit or ended by a stop string (see
 * ContextManager.replySegments): it is part of the training row too, which must fit the model.
 */
export function replyRoom(cm: ContextManager, env: EnvPromptInfo, turns: readonly ContextTurn[], promptLength: number, maxSequenceLength: number): number {
  return maxSequenceLength - cm.trainingLength(env, turns, promptLength) - 1;
}

export interface RolloutParams {
  esManager: EnvStateManager;
  contextManager: ContextManager;
  tokenizer: Tokenizer;
  generator: ResponseGenerator;
  settings: RolloutSettings;
}

export async function runRollout(params: RolloutParams): Promise<RolloutResult> {
  const { esManager: es, contextManager: cm, tokenizer, generator, settings } = params;
  es.reset();
  const contexts: ContextTurn[][] = es.entries.map((entry) => [firstContextTurn(es, entry.envId)]);
  const records: TurnRecord[][] = es.entries.map(() => []);
  const stopSequences = settings.stop.map((text) => tokenizer.encode(text));
  const statesBefore: StateRender[] = es.entries.map((entry) => es.episode(entry.envId).initialState);
  try {
    await playEpisodes(params, contexts, records, stopSequences, statesBefore);
  } finally {
    generator.release?.();
  }
  return finishRollout(es, cm, contexts, records, settings);
}

async function playEpisodes(
  params: RolloutParams,
  contexts: ContextTurn[][],
  records: TurnRecord[][],
  stopSequences: number[][],
  statesBefore: StateRender[],
): Promise<void> {
  const { esManager: es, contextManager: cm, tokenizer, generator, settings } = params;
  const maxSequenceLength = Math.min(settings.maxSequenceLength, generator.contextLength ?? Infinity);
  for (;;) {
    const active = es.activeEnvIds();
    if (active.length === 0) break;
    const prompts: number[][] = [];
    const limits: number[] = [];
    const asked: number[] = [];
    for (const envId of active) {
      const ids = cm.contextIds(es.entries[envId].prompt, contexts[envId]);
      const free = replyRoom(cm, es.entries[envId].prompt, contexts[envId], ids.length, maxSequenceLength);
      const room = Math.min(settings.responseLength, free);
      if (room < 1) {
        contexts[envId].pop();
        es.endEpisode(envId, 'context-full');
        continue;
      }
      prompts.push(ids);
      limits.push(room);
      asked.push(envId);
    }
    if (asked.length === 0) continue;
    const responses = await generator.generate(prompts, {
      ...settings.sampling,
      maxNewTokens: limits,
      stopTokenId: tokenizer.endOfTurnId,
      stopSequences,
      rowKeys: asked,
    });
    if (responses.length !== asked.length) {
      throw new Error(`ResponseGenerator returned ${responses.length} responses for ${asked.length} prompts`);
    }
    asked.forEach((envId, i) => {
      const response = checkResponse(responses[i], limits[i], envId);
      const ended = response.tokenIds[response.tokenIds.length - 1] === tokenizer.endOfTurnId;
      const stoppedAtString = !ended && stopSequences.some((s) => endsWithIds(response.tokenIds, s));
      const text = tokenizer.decode(ended ? response.tokenIds.slice(0, -1) : response.tokenIds);
      const entry = es.entries[envId];
      const current = contexts[envId][contexts[envId].length - 1];
      const outcome = es.step(envId, cm.parse(text, entry.prompt.actionNames));
      current.reply = { generatedIds: response.tokenIds, logprobs: response.logprobs, text, reward: outcome.envReward };
      records[envId].push({
        ...outcome,
        observationBefore: current.observation,
        stateShown: cm.template.turnText(current),
        stateBefore: statesBefore[envId],
        responseText: text,
        generatedIds: [...response.tokenIds],
        logprobs: [...response.logprobs],
        cut: !ended && !stoppedAtString,
      });
      statesBefore[envId] = outcome.state;
      if (!outcome.done) {
        contexts[envId].push(nextContextTurn(current, outcome, es.actionsLeft(envId)));
      } else {
        generator.forget?.(envId);
      }
    });
  }
}

function checkResponse(response: GeneratedResponse, limit: number, envId: number): GeneratedResponse {
  if (response.tokenIds.length === 0) throw new Error(`ResponseGenerator returned no tokens for env ${envId}`);
  if (response.tokenIds.length > limit) {
    throw new Error(`ResponseGenerator returned ${response.tokenIds.length} tokens for env ${envId}, more than the limit ${limit}`);
  }
  if (response.logprobs.length !== response.tokenIds.length) {
    throw new Error(`ResponseGenerator returned ${response.tokenIds.length} ids but ${response.logprobs.length} logprobs for env ${envId}`);
  }
  return response;
}

function finishRollout(
  es: EnvStateManager,
  cm: ContextManager,
  contexts: ContextTurn[][],
  records: TurnRecord[][],
  settings: RolloutSettings,
): RolloutResult {
  const episodes = es.allEpisodes();
  const keys = groupingKeys(episodes, settings.rewardNormalization.grouping);
  const method = settings.rewardNormalization.method;
  const envScores = records.map((turns) => turns.reduce((sum, t) => sum + t.envReward, 0));
  const penalties = records.map((turns) => turns.reduce((sum, t) => sum + t.penalty, 0));

  // With turn scores each turn's env reward is normalised against all turn rewards of its grouping.
  const placements: RewardPlacement[] = [];
  const trainRewards: number[] = [];
  const bonuses = records.map((turns, e) => shapingBonuses(episodes[e], turns.length, settings.turnShaping ?? null));
  if (settings.useTurnScores) {
    const flatKeys = records.flatMap((turns, e) => turns.map(() => keys[e]));
    const flat = normalizeScores(records.flatMap((turns) => turns.map((t) => t.envReward)), flatKeys, method);
    let k = 0;
    records.forEach((turns, e) => {
      const perTurn = new Map<number, number>();
      turns.forEach((t, i) => perTurn.set(t.turn, flat[k++] + t.penalty + (bonuses[e]?.[i] ?? 0)));
      placements.push({ mode: 'turn-ends', perTurn });
      trainRewards.push([...perTurn.values()].reduce((a, b) => a + b, 0));
    });
  } else {
    const normalized = normalizeScores(envScores, keys, method);
    normalized.forEach((score, e) => {
      const bonus = bonuses[e];
      if (bonus && bonus.length > 0) {
        // Shaping is per turn, so the episode's reward joins its last turn's bonus.
        const perTurn = new Map(records[e].map((t, i) => [t.turn, bonus[i]]));
        const last = records[e][records[e].length - 1].turn;
        perTurn.set(last, perTurn.get(last)! + score + penalties[e]);
        placements.push({ mode: 'turn-ends', perTurn });
        trainRewards.push(score + penalties[e] + bonus.reduce((a, b) => a + b, 0));
      } else {
        placements.push({ mode: 'episode-end', total: score + penalties[e] });
        trainRewards.push(score + penalties[e]);
      }
    });
  }

  const summaries: EpisodeSummary[] = [];
  const out: EpisodeRecord[] = episodes.map((episode, e) => {
    const entry = es.entries[e];
    const turns = records[e];
    const answered = contexts[e].filter((turn) => turn.reply);
    const sequence =
      answered.length > 0
        ? buildEpisodeSequence(cm.trainingDocuments(entry.prompt, answered), placements[e])
        : emptyEpisodeSequence();
    const summary: EpisodeSummary = {
      groupId: episode.groupId,
      tag: episode.tag,
      success: episode.success,
      numActions: episode.numActions,
      numTurns: turns.length,
      actionsWritten: episode.actionsWritten,
      actionsValid: episode.actionsValid,
      actionsEffective: episode.actionsEffective,
      responseLengths: turns.map((t) => t.generatedIds.length),
      formatOkTurns: turns.filter((t) => t.parsed.formatOk).length,
      reward: envScores[e] + penalties[e],
      contextFull: episode.endReason === 'context-full',
    };
    summaries.push(summary);
    return {
      split: es.split,
      envId: episode.envId,
      groupId: episode.groupId,
      tag: episode.tag,
      seed: episode.seed,
      turns,
      initialObservation: episode.initialObservation,
      initialState: episode.initialState,
      numActions: episode.numActions,
      success: episode.success,
      endReason: episode.endReason ?? 'max-turn',
      envScore: envScores[e],
      penalty: penalties[e],
      score: envScores[e] + penalties[e],
      trainReward: trainRewards[e],
      ...(bonuses[e] ? { shapingBonus: bonuses[e].reduce((a, b) => a + b, 0) } : {}),
      sequence,
      messages: answered.length > 0 ? cm.messages(entry.prompt, answered) : [],
      metrics: {},
    };
  });
  const metrics = computeRolloutMetrics(es.split, summaries, es.groupSize);
  out.forEach((record, e) => {
    record.metrics = episodeMetricValues(summaries[e]);
  });
  return { split: es.split, episodes: out, metrics };
}

/** Each played turn's shaping bonus, or null without shaping (or without recorded potentials). */
function shapingBonuses(episode: { potentials?: number[] }, turnsPlayed: number, shaping: TurnShaping | null): number[] | null {
  if (shaping === null || !episode.potentials) return null;
  // An episode cut from outside (context full) before its next turn ends in the state it stopped in.
  return turnShapingBonuses(episode.potentials.slice(0, turnsPlayed + 1), shaping);
}
