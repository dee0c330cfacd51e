import { distancePotential } from '../algo/turn-shaping';
import { ConfigError } from '../config/errors';
import type { RunConfig } from '../config/schema';
import { parseEnvOptions } from '../envs/options';
import { getEnvSpec } from '../envs/registry';
import { hasSolverDistance, solverDistance } from '../envs/solver-distance';
import type { Env, EnvInfo, EnvSpec, StateRender } from '../envs/types';
import { violatesFormat, type ParsedResponse } from './parse-response';
import type { EnvPromptInfo } from './templates';

/**
 * The environment-state manager: builds a split's environments from the config, in groups of
 * `group_size` that share a start seed, resets them with RAGEN's seed schedule and applies the
 * model's parsed actions turn by turn within the action budget and the turn limit.
 */

export type Split = 'train' | 'val';
export type EndReason = 'env-done' | 'action-budget' | 'max-turn' | 'context-full';

/** Looks up how to build an env; the registry in production, anything in tests. */
export type EnvSpecResolver = (envType: string, tag: string) => EnvSpec;

export interface EnvEntry {
  envId: number;
  /** `envId / group_size`, counted over all tags of the split. */
  groupId: number;
  tag: string;
  env: Env;
  /** False for single-step envs: only the first valid action of a turn is applied. */
  multiAction: boolean;
  maxActionsPerTraj: number;
  prompt: EnvPromptInfo;
}

export interface ActionOutcome {
  action: string;
  reward: number;
  done: boolean;
  info: EnvInfo;
}

export interface TurnOutcome {
  /** 1-based. */
  turn: number;
  actionsLeftBefore: number;
  parsed: ParsedResponse;
  executedActions: string[];
  outcomes: ActionOutcome[];
  /** Sum of the env's rewards over the executed actions. */
  envReward: number;
  /** The format penalty when the turn broke the format rule, else 0. */
  penalty: number;
  /** envReward + penalty. */
  reward: number;
  /** The episode ended with this turn. */
  done: boolean;
  endReason: EndReason | null;
  /** Observation and structured state after the turn. */
  observation: string;
  state: StateRender;
  /** Infos of the executed actions merged in order (the last action's values win). */
  info: Record<string, unknown>;
}

export interface EpisodeStatus {
  envId: number;
  groupId: number;
  tag: string;
  seed: number;
  initialObservation: string;
  initialState: StateRender;
  turns: TurnOutcome[];
  numActions: number;
  done: boolean;
  success: boolean;
  endReason: EndReason | null;
  /** Actions the model wrote (after cutting to max_actions_per_turn). */
  actionsWritten: number;
  /** Of those, the ones naming a valid action that the env did not reject. */
  actionsValid: number;
  /** Executed actions that changed the state. */
  actionsEffective: number;
  /**
   * With `potentials`: phi = -(solver distance to the goal) of the state each turn was played
   * from, then of the state the last turn left, for `algorithm.turn_shaping` (see
   * algo/turn-shaping.ts).
   */
  potentials?: number[];
}

export interface EnvStateManagerOptions {
  /** Defaults to the built-in registry; use `loadEnvSpecResolver` for configs with custom env modules. */
  resolveSpec?: EnvSpecResolver;
  /** Record each turn's solver potential (the train rollout of a run with `algorithm.turn_shaping`). */
  potentials?: boolean;
}

export interface EnvStateManagerState {
  resetCount: number;
  /**
   * The offset of the next train rollout's seeds past start_seed: the groups of every rollout so
   * far, which is resetCount x env_groups while the groups stay the same (curriculum stages keep
   * them). A fork with another es_manager.train.env_groups goes on from it, so no start seed
   * repeats. Checkpoints from before it was kept lack it, and resume as they ran (resetCount x
   * env_groups).
   */
  seedOffset?: number;
}

export class EnvStateManager {
  readonly entries: EnvEntry[];
  readonly groupSize: number;
  readonly numGroups: number;
  private readonly startSeed: number;
  /** es_manager.train.seeds: when given, the train rollouts cycle through these start seeds. */
  private readonly seedList: readonly number[];
  private readonly maxTurn: number;
  private readonly formatPenalty: number;
  private resets = 0;
  /** Set once a train rollout has started or a state carrying it was restored; else resets x numGroups. */
  private seedOffset: number | null = null;
  private episodes: EpisodeStatus[] = [];
  private readonly trackPotentials: boolean;

  constructor(
    cfg: RunConfig,
    readonly split: Split,
    options: EnvStateManagerOptions = {},
  ) {
    const resolveSpec = options.resolveSpec ?? ((envType: string) => getEnvSpec(envType));
    const splitCfg = cfg.es_manager[split];
    this.groupSize = splitCfg.group_size;
    this.numGroups = splitCfg.env_groups;
    this.startSeed = splitCfg.start_seed;
    this.seedList = split === 'train' ? cfg.es_manager.train.seeds : [];
    this.maxTurn = cfg.agent_proxy.max_turn;
    this.formatPenalty = cfg.es_manager.format_penalty;
    this.entries = [];
    this.trackPotentials = options.potentials === true;
    const { tags, n_groups } = splitCfg.env_configs;
    tags.forEach((tag, t) => {
      const envCfg = cfg.custom_envs[tag];
      if (!envCfg) throw new Error(`es_manager.${split}: tag \`${tag}\` is not defined under custom_envs`);
      const spec = resolveSpec(envCfg.env_type, tag);
      const envOptions = parseEnvOptions(spec, envCfg.env_config, `custom_envs.${tag}.env_config`);
      for (let i = 0; i < n_groups[t] * this.groupSize; i++) {
        const envId = this.entries.length;
        const env = spec.create(envOptions);
        if (i === 0 && split === 'train' && cfg.algorithm.turn_shaping !== null && !hasSolverDistance(env)) {
          throw new ConfigError([
            {
              path: ['algorithm', 'turn_shaping'],
              message: `\`algorithm.turn_shaping\` shapes rewards by the solver's distance to the goal, but env \`${tag}\` (env_type ${envCfg.env_type}) has no solver (neither distanceToGoal() nor solve()); set algorithm.turn_shaping to null or give the env a solver`,
            },
          ]);
        }
        this.entries.push({
          envId,
          groupId: Math.floor(envId / this.groupSize),
          tag,
          env,
          multiAction: spec.multiAction,
          maxActionsPerTraj: envCfg.max_actions_per_traj,
          prompt: {
            instruction: envCfg.env_instruction ?? env.instructions(),
            legend: env.legend(),
            actionNames: env.actionNames(),
            maxActionsPerTraj: envCfg.max_actions_per_traj,
          },
        });
      }
    });
  }

  /** Rollouts started so far; the train seed schedule follows it. */
  get resetCount(): number {
    return this.resets;
  }

  state(): EnvStateManagerState {
    return { resetCount: this.resets, seedOffset: this.trainSeedOffset() };
  }

  /** Continues a seed schedule from a checkpoint, or from another stage's env manager. */
  restoreState(state: EnvStateManagerState): void {
    this.resets = state.resetCount;
    this.seedOffset = state.seedOffset ?? null;
  }

  private trainSeedOffset(): number {
    return this.seedOffset ?? this.resets * this.numGroups;
  }

  /**
   * Start seed of each group for the next reset. Train seeds move on by the number of groups at
   * every reset, so no start state repeats; validation seeds never change, so validations compare.
   * A list of train seeds (es_manager.train.seeds) is played in turn the same way, from its start
   * again once every seed has been played.
   */
  nextGroupSeeds(): number[] {
    const offset = this.split === 'train' ? this.trainSeedOffset() : 0;
    const list = this.seedList;
    if (list.length > 0) return Array.from({ length: this.numGroups }, (_, g) => list[(offset + g) % list.length]);
    return Array.from({ length: this.numGroups }, (_, g) => this.startSeed + offset + g);
  }

  /** Starts a new rollout: every env is reset with its group's seed. */
  reset(): void {
    const seeds = this.nextGroupSeeds();
    if (this.split === 'train') {
      this.seedOffset = this.trainSeedOffset() + this.numGroups;
      this.resets += 1;
    }
    this.episodes = this.entries.map((entry) => {
      const seed = seeds[entry.groupId];
      const initialObservation = entry.env.reset(seed);
      return {
        envId: entry.envId,
        groupId: entry.groupId,
        tag: entry.tag,
        seed,
        initialObservation,
        initialState: entry.env.renderState(),
        turns: [],
        numActions: 0,
        done: false,
        success: false,
        endReason: null,
        actionsWritten: 0,
        actionsValid: 0,
        actionsEffective: 0,
        ...(this.trackPotentials ? { potentials: [this.potential(entry)] } : {}),
      };
    });
  }

  /** phi of the env's current state; no way to the goal within the budget counts as budget + 1 moves. */
  private potential(entry: EnvEntry): number {
    return distancePotential(solverDistance(entry.env), entry.maxActionsPerTraj + 1);
  }

  episode(envId: number): EpisodeStatus {
    const episode = this.episodes[envId];
    if (!episode) throw new Error(`no episode for env ${envId}; call reset() first`);
    return episode;
  }

  allEpisodes(): readonly EpisodeStatus[] {
    return this.episodes;
  }

  activeEnvIds(): number[] {
    return this.episodes.filter((e) => !e.done).map((e) => e.envId);
  }

  actionsLeft(envId: number): number {
    return this.entries[envId].maxActionsPerTraj - this.episode(envId).numActions;
  }

  /** The observation the model answers next. */
  currentObservation(envId: number): string {
    const episode = this.episode(envId);
    const last = episode.turns[episode.turns.length - 1];
    return last ? last.observation : episode.initialObservation;
  }

  /** Ends an episode from outside, e.g. when its context no longer fits the model. */
  endEpisode(envId: number, reason: EndReason): void {
    const episode = this.episode(envId);
    if (episode.done) return;
    episode.done = true;
    episode.endReason = reason;
  }

  /** Applies one turn's parsed actions until the env is done or the budget is spent. */
  step(envId: number, parsed: ParsedResponse): TurnOutcome {
    const entry = this.entries[envId];
    const episode = this.episode(envId);
    if (episode.done) throw new Error(`env ${envId} is done; reset() before stepping it again`);
    const actionsLeftBefore = entry.maxActionsPerTraj - episode.numActions;
    const perTurnCap = entry.multiAction ? actionsLeftBefore : Math.min(1, actionsLeftBefore);
    const outcomes: ActionOutcome[] = [];
    const info: Record<string, unknown> = {};
    let envReward = 0;
    let envDone = false;
    for (const action of parsed.validActions.slice(0, perTurnCap)) {
      const result = entry.env.step(action);
      outcomes.push({ action, reward: result.reward, done: result.done, info: result.info });
      Object.assign(info, result.info);
      envReward += result.reward;
      if (result.done) {
        envDone = true;
        break;
      }
    }
    const penalty = violatesFormat(parsed) ? this.formatPenalty : 0;
    const turn = episode.turns.length + 1;
    episode.numActions += outcomes.length;
    episode.actionsWritten += parsed.actions.length;
    episode.actionsValid += parsed.validActions.length - outcomes.filter((o) => !o.info.actionIsValid).length;
    episode.actionsEffective += outcomes.filter((o) => o.info.actionIsEffective).length;

    let endReason: EndReason | null = null;
    if (envDone) endReason = 'env-done';
    else if (episode.numActions >= entry.maxActionsPerTraj) endReason = 'action-budget';
    else if (turn >= this.maxTurn) endReason = 'max-turn';
    const outcome: TurnOutcome = {
      turn,
      actionsLeftBefore,
      parsed,
      executedActions: outcomes.map((o) => o.action),
      outcomes,
      envReward,
      penalty,
      reward: envReward + penalty,
      done: endReason !== null,
      endReason,
      observation: entry.env.render(),
      state: entry.env.renderState(),
      info,
    };
    episode.turns.push(outcome);
    if (endReason !== null) {
      episode.done = true;
      episode.endReason = endReason;
      episode.success = envDone && outcomes[outcomes.length - 1].info.success === true;
    }
    if (episode.potentials) {
      // An env that ended the episode without success (a hole) left the goal out of reach.
      const lost = envDone && !episode.success;
      episode.potentials.push(episode.success ? 0 : lost ? -(entry.maxActionsPerTraj + 1) : this.potential(entry));
    }
    return outcome;
  }
}
