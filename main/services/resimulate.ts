// Re-simulation of stored episodes: rebuild the run's environment from its stored config, reset
// it with the episode's seed and push the stored actions through it the way the rollout's
// environment-state manager does, then compare every turn with what was stored. A match says
// the stored trajectory is what the environment produces; a mismatch says where it diverged.
import { z } from 'zod';
import type { ReplaySettingsDto, ResimulationDto, TurnCheckDto } from '../../preload/contract';
import { TEMPLATES, customEnvSchema, parseEnvOptions, resolveEnvSpec, type Env, type EnvSpec, matchActionNames, violatesFormat, type ParsedResponse } from '../../trainer-core';
import { storedResponsePrefix } from './response-prefix';
import type { Store } from '../store/db';
import type { EpisodeRecord, TurnRecord } from '../store/types';

/** Why an episode cannot be re-simulated (unknown ids, a config without what is needed). */
export class ResimulateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ResimulateError';
  }
}

/** The parts of a stored run config that replies and env steps depend on. */
const storedConfigSchema = z.object({
  agent_proxy: z.object({
    max_turn: z.number().int().positive(),
    action_sep: z.string().min(1),
    max_actions_per_turn: z.number().int().positive(),
    enable_think: z.boolean(),
    template: z.enum(TEMPLATES),
  }),
  es_manager: z.object({ format_penalty: z.number() }),
  custom_envs: z.record(z.string(), customEnvSchema),
});
type StoredConfig = z.output<typeof storedConfigSchema>;

/** How the rollout stepped one env tag: what a replay must do the same way. */
export interface StepRules {
  multiAction: boolean;
  maxActionsPerTraj: number;
  maxTurn: number;
  formatPenalty: number;
}

const REWARD_TOLERANCE = 1e-9;

function parseStoredConfig(config: unknown, owner: string): StoredConfig {
  const parsed = storedConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ResimulateError(
      `${owner}'s stored config cannot rebuild its environments: ${issue.path.join('.') || 'config'}: ${issue.message}`,
    );
  }
  return parsed.data;
}

function readConfig(store: Store, runId: number): StoredConfig {
  const run = store.runs.get(runId);
  if (!run) throw new ResimulateError(`unknown run ${runId}`);
  return parseStoredConfig(run.config, `run ${runId}`);
}

/** The config an episode was played with: its evaluation's (with the evaluation's overrides) or its run's. */
function episodeConfig(store: Store, episodeId: number, runId: number): StoredConfig {
  const evaluationId = store.episodes.evaluationOf(episodeId);
  const evaluation = evaluationId === null ? undefined : store.evaluations.get(evaluationId);
  return evaluation ? parseStoredConfig(evaluation.config, `evaluation ${evaluation.id}`) : readConfig(store, runId);
}

async function loadSpec(cfg: StoredConfig, runId: number, envTag: string, baseDir: string): Promise<{ spec: EnvSpec; options: Record<string, unknown> }> {
  // Escaped as in JSON, so a tag the caller typed with a line break still makes a one-line message.
  const tag = JSON.stringify(envTag).slice(1, -1);
  // Own keys only: a tag such as `toString` or `__proto__` must not find Object.prototype's members.
  const envCfg = Object.hasOwn(cfg.custom_envs, envTag) ? cfg.custom_envs[envTag] : undefined;
  if (!envCfg) {
    const known = Object.keys(cfg.custom_envs).join(', ') || 'none';
    throw new ResimulateError(`run ${runId}'s config defines no env tag '${tag}' under custom_envs (defined: ${known})`);
  }
  try {
    const spec = await resolveEnvSpec(envCfg.module ?? envCfg.env_type, baseDir);
    return { spec, options: parseEnvOptions(spec, envCfg.env_config) };
  } catch (error) {
    throw new ResimulateError(`env tag '${tag}' of run ${runId}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export interface ResimulateOptions {
  /** Folder that relative custom env module paths are resolved against (default: working folder). */
  baseDir?: string;
}

/** Action names and reply format of one env tag of a run. */
export async function replaySettings(store: Store, runId: number, envTag: string, options: ResimulateOptions = {}): Promise<ReplaySettingsDto> {
  const cfg = readConfig(store, runId);
  const createdAt = store.runs.get(runId)!.createdAt;
  const { spec, options: envOptions } = await loadSpec(cfg, runId, envTag, options.baseDir ?? process.cwd());
  const env = spec.create(envOptions);
  const proxy = cfg.agent_proxy;
  return {
    envTag,
    envType: spec.type,
    actionNames: env.actionNames(),
    responsePrefix: storedResponsePrefix(cfg, createdAt),
    enableThink: proxy.enable_think,
    actionSep: proxy.action_sep,
    multiAction: spec.multiAction,
    maxActionsPerTraj: cfg.custom_envs[envTag].max_actions_per_traj,
  };
}

/** JSON with sorted keys, so states compare regardless of key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

function sameReward(a: number, b: number): boolean {
  return Math.abs(a - b) <= REWARD_TOLERANCE;
}

type StoredEpisode = Pick<EpisodeRecord, 'id' | 'seed' | 'numTurns' | 'numActions' | 'success' | 'totalReward'>;
type StoredTurn = Pick<TurnRecord, 'turnIndex' | 'observation' | 'state' | 'actions' | 'numValidActions' | 'reward' | 'done'>;

/**
 * Replays stored turns through `env` (fresh or not: it is reset here) and compares. Mirrors
 * EnvStateManager.step: only the valid actions run, a single-action env runs the first one,
 * the per-episode action budget caps a turn, and an env that reports done ends the turn.
 */
export function replayStoredEpisode(env: Env, rules: StepRules, episode: StoredEpisode, turns: readonly StoredTurn[]): ResimulationDto {
  let observation = env.reset(episode.seed);
  let state: unknown = env.renderState();
  let numActions = 0;
  let ended = false;
  let success = false;
  let totalReward = 0;
  const checks: TurnCheckDto[] = [];
  const actionNames = env.actionNames();

  for (const [position, turn] of turns.entries()) {
    if (ended) {
      checks.push({
        turnIndex: turn.turnIndex,
        executedActions: [],
        observationMatches: false,
        stateMatches: false,
        rewardMatches: false,
        doneMatches: false,
        validActionsMatch: false,
        storedReward: turn.reward,
        replayedReward: 0,
        storedDone: turn.done,
        replayedDone: true,
        mismatch: 'the re-simulated episode had already ended before this turn',
      });
      continue;
    }
    const problems: string[] = [];
    const observationMatches = turn.observation === observation;
    if (!observationMatches) problems.push('observation differs');
    // Rows written before structured states were stored have none to compare.
    const stateMatches = turn.state === null || turn.state === undefined || canonical(turn.state) === canonical(state);
    if (!stateMatches) problems.push('state differs');

    const validActions = matchActionNames(turn.actions, actionNames);
    const validActionsMatch = validActions.length === turn.numValidActions;
    if (!validActionsMatch) problems.push(`valid actions: stored ${turn.numValidActions}, env accepts ${validActions.length}`);
    const parsed: ParsedResponse = { think: '', answer: '', actions: [...turn.actions], validActions, formatOk: true, actionsCut: 0 };

    const actionsLeft = rules.maxActionsPerTraj - numActions;
    const cap = rules.multiAction ? actionsLeft : Math.min(1, actionsLeft);
    const executedActions: string[] = [];
    let envReward = 0;
    let envDone = false;
    for (const action of validActions.slice(0, cap)) {
      const result = env.step(action);
      executedActions.push(action);
      envReward += result.reward;
      if (result.done) {
        envDone = true;
        success = result.info.success === true;
        break;
      }
    }
    numActions += executedActions.length;
    const replayedReward = envReward + (violatesFormat(parsed) ? rules.formatPenalty : 0);
    const replayedDone = envDone || numActions >= rules.maxActionsPerTraj || position + 1 >= rules.maxTurn;
    totalReward += replayedReward;
    const rewardMatches = sameReward(replayedReward, turn.reward);
    if (!rewardMatches) problems.push(`reward: stored ${turn.reward}, re-simulated ${replayedReward}`);
    const doneMatches = replayedDone === turn.done;
    if (!doneMatches) problems.push(`done: stored ${turn.done}, re-simulated ${replayedDone}`);
    checks.push({
      turnIndex: turn.turnIndex,
      executedActions,
      observationMatches,
      stateMatches,
      rewardMatches,
      doneMatches,
      validActionsMatch,
      storedReward: turn.reward,
      replayedReward,
      storedDone: turn.done,
      replayedDone,
      mismatch: problems.length > 0 ? problems.join('; ') : null,
    });
    ended = replayedDone;
    observation = env.render();
    state = env.renderState();
  }

  const episodeMismatches: string[] = [];
  if (episode.numTurns !== turns.length) episodeMismatches.push(`turns: episode says ${episode.numTurns}, ${turns.length} stored`);
  if (episode.numActions !== numActions) episodeMismatches.push(`actions executed: stored ${episode.numActions}, re-simulated ${numActions}`);
  if (episode.success !== success) episodeMismatches.push(`success: stored ${episode.success}, re-simulated ${success}`);
  if (!sameReward(episode.totalReward, totalReward)) {
    episodeMismatches.push(`total reward: stored ${episode.totalReward}, re-simulated ${totalReward}`);
  }
  const firstBad = checks.find((c) => c.mismatch !== null);
  const reproduced = firstBad === undefined && episodeMismatches.length === 0;
  let summary: string;
  if (reproduced) summary = `reproduced: all ${checks.length} turns match the environment re-run from seed ${episode.seed}`;
  else if (firstBad) summary = `not reproduced: turn ${firstBad.turnIndex + 1}: ${firstBad.mismatch}`;
  else summary = `not reproduced: ${episodeMismatches.join('; ')}`;
  // After the loop `observation` and `state` are the environment's after the last turn.
  return { episodeId: episode.id, reproduced, turns: checks, episodeMismatches, summary, finalObservation: observation, finalState: state };
}

/** Re-simulates one stored episode from its run's config and seed. */
export async function resimulateEpisode(store: Store, episodeId: number, options: ResimulateOptions = {}): Promise<ResimulationDto> {
  const episode = store.episodes.get(episodeId);
  if (!episode) throw new ResimulateError(`unknown episode ${episodeId}`);
  try {
    return await resimulateStored(store, episode, options);
  } catch (error) {
    // The refusal names the run or evaluation whose config fails; the caller asked by episode.
    throw error instanceof ResimulateError ? new ResimulateError(`episode ${episodeId}: ${error.message}`) : error;
  }
}

async function resimulateStored(store: Store, episode: EpisodeRecord, options: ResimulateOptions): Promise<ResimulationDto> {
  const cfg = episodeConfig(store, episode.id, episode.runId);
  const { spec, options: envOptions } = await loadSpec(cfg, episode.runId, episode.envTag, options.baseDir ?? process.cwd());
  const rules: StepRules = {
    multiAction: spec.multiAction,
    maxActionsPerTraj: cfg.custom_envs[episode.envTag].max_actions_per_traj,
    maxTurn: cfg.agent_proxy.max_turn,
    formatPenalty: cfg.es_manager.format_penalty,
  };
  return replayStoredEpisode(spec.create(envOptions), rules, episode, store.turns.listByEpisode(episode.id));
}
