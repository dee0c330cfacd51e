import type { RunConfig } from '../config/schema';
import type { Env, TurnBudget } from '../envs/types';
import type { Rng } from '../rng';
import { nextContextTurn, type ContextManager, type ContextTurn } from '../rollout/context-manager';
import { buildEpisodeSequence, emptyEpisodeSequence, type EpisodeSequence } from '../rollout/episode-sequence';
import { EnvStateManager, type EnvSpecResolver } from '../rollout/es-manager';
import { templateOf, type PromptTemplate } from '../rollout/templates';
import type { Tokenizer } from '../rollout/tokenizer';

/**
 * Episodes the environments play by themselves, for the warm start and for fitting the
 * tokenizer: `expert` follows the env's solver; `random-valid` writes random legal actions in the
 * right format, which teaches the format and nothing about the task.
 */
export type DemonstrationMode = 'expert' | 'random-valid';

export interface Demonstration {
  tag: string;
  /** Flat text of the whole conversation, replies included. */
  text: string;
  /** Training sequence: loss mask on the demonstrated replies only. */
  sequence: EpisodeSequence;
  /** Tokens of each demonstrated reply, its end-of-turn token included, as a rollout counts them against response_length. */
  replyTokens?: number[];
  /** Whether the demonstrated episode ended in success, as the env scored it. */
  success?: boolean;
}

/**
 * A `note:` where not one demonstrated episode succeeded: the warm start imitates a solver (or
 * random valid moves) that never reaches the goal, which a broken custom solver does silently
 * (`turnlab check` says so of its plans; a run did not).
 */
export function unsolvedDemonstrationsNote(demonstrations: readonly Demonstration[], mode: string): string | null {
  const scored = demonstrations.filter((d) => d.success !== undefined);
  if (mode !== 'expert' || scored.length === 0 || scored.some((d) => d.success)) return null;
  return `note: none of the warm start's ${scored.length} demonstrated episodes succeeded: it imitates a solver that does not reach the goal; turnlab check <env> plays the solver's plans and says where they go wrong`;
}

/**
 * A `note:` where demonstrated replies are longer than the rollout lets the policy write: the warm
 * start teaches them whole, the rollout cuts them at `response_length`, so the policy's replies
 * end unfinished (no closing tag, no action) however low the warm start's loss went.
 */
export function longReplyNote(demonstrations: readonly Demonstration[], responseLength: number): string | null {
  const lengths = demonstrations.flatMap((d) => d.replyTokens ?? []);
  const over = lengths.filter((n) => n > responseLength);
  if (over.length === 0) return null;
  const longest = Math.max(...over);
  return (
    `note: ${over.length} of the warm start's ${lengths.length} demonstrated replies are longer than actor_rollout_ref.rollout.response_length ` +
    `(${responseLength} tokens, the end of turn included; the longest ${longest}): the rollout cuts them there, so the policy learns replies it cannot finish; ` +
    `raise response_length to ${longest} or shorten the demonstrated replies`
  );
}

/** The reply a well-behaved model would write for `actions` (after `thought`), minus the prompt's response prefix. */
export function formatReply(template: PromptTemplate, cfg: RunConfig, actions: readonly string[], thought = ''): string {
  const think = cfg.agent_proxy.enable_think ? `<think>${thought}</think>` : '';
  const full = `${think}<answer>${actions.join(` ${cfg.agent_proxy.action_sep} `)}</answer>`;
  return full.startsWith(template.responsePrefix) ? full.slice(template.responsePrefix.length) : full;
}

/**
 * Plays one rollout of `es` with demonstrated replies. Uses the real env-state manager, so the
 * action budget, max turns and format rules are exactly those of training.
 */
export function playDemonstrations(options: {
  cfg: RunConfig;
  es: EnvStateManager;
  cm: ContextManager;
  tokenizer: Tokenizer | null;
  mode: DemonstrationMode;
  rng: Rng;
}): Demonstration[] {
  const { cfg, es, cm, tokenizer, mode, rng } = options;
  const template = templateOf(cfg);
  const contexts = startEpisodes(es);
  const usable = es.entries.map(() => true);
  for (;;) {
    const active = es.activeEnvIds();
    if (active.length === 0) break;
    for (const envId of active) {
      const entry = es.entries[envId];
      const current = contexts[envId][contexts[envId].length - 1];
      const text = demonstratedReply(cfg, template, es, envId, current, mode, rng);
      if (text === null) {
        usable[envId] = false;
        es.endEpisode(envId, 'max-turn');
        continue;
      }
      const ids = tokenizer ? [...tokenizer.encode(text), tokenizer.endOfTurnId] : [];
      const outcome = es.step(envId, cm.parse(text, entry.prompt.actionNames));
      current.reply = { generatedIds: ids, logprobs: ids.map(() => 0), text, reward: outcome.envReward };
      if (!outcome.done) {
        contexts[envId].push(nextContextTurn(current, outcome, es.actionsLeft(envId)));
      }
    }
  }
  return toDemonstrations(es, cm, tokenizer, contexts, usable);
}

/** One demonstration per usable episode: its turns that have a reply, as training documents. */
export function toDemonstrations(
  es: EnvStateManager,
  cm: ContextManager,
  tokenizer: Tokenizer | null,
  contexts: readonly ContextTurn[][],
  usable: readonly boolean[],
): Demonstration[] {
  const out: Demonstration[] = [];
  es.entries.forEach((entry, envId) => {
    const turns = contexts[envId].filter((turn) => turn.reply);
    if (!usable[envId] || turns.length === 0) return;
    const text = cm.flatText(entry.prompt, turns);
    const sequence = tokenizer
      ? buildEpisodeSequence(cm.trainingDocuments(entry.prompt, turns), { mode: 'episode-end', total: 0 })
      : emptyEpisodeSequence();
    out.push({ tag: entry.tag, text, sequence, replyTokens: turns.map((turn) => turn.reply!.generatedIds.length), success: es.episode(envId).success });
  });
  return out;
}

/**
 * The warm start's rounds of demonstrations, each a call of `play`, from seeds past any training
 * seed; with `warm_start.episodes`, the train split's groups played as groups of one. `envs`: the
 * demonstrations a round plays at most.
 */
export function demonstrationRounds(options: { cfg: RunConfig; cm: ContextManager; tokenizer: Tokenizer; rng: Rng; resolveSpec?: EnvSpecResolver }): { play: () => Demonstration[]; envs: number } {
  const { cfg, cm, tokenizer, rng } = options;
  const playCfg = cfg.warm_start.episodes === null ? cfg : distinctStartsConfig(cfg);
  const es = new EnvStateManager(playCfg, 'train', { resolveSpec: options.resolveSpec });
  es.restoreState({ resetCount: demonstrationResetCount(cfg, es.numGroups, es.entries.length) });
  return { play: () => playDemonstrations({ cfg: playCfg, es, cm, tokenizer, mode: cfg.warm_start.mode as DemonstrationMode, rng }), envs: es.entries.length };
}

/** Rollout count of the warm start when `warm_start.episodes` is null (its figures predate the key). */
const DEFAULT_ROUNDS = 4;

/** Most rounds collectDemonstrations plays of `envs` envs a round. */
function maxDemonstrationRounds(cfg: RunConfig, envs: number): number {
  // A solver that fails on most start states must not loop forever: give up after 4x the rounds.
  return cfg.warm_start.episodes === null ? DEFAULT_ROUNDS : 4 * Math.ceil(cfg.warm_start.episodes / envs);
}

/**
 * The reset the demonstrations start from: a million, past any training seed. A split of one
 * group a round plays seeds from start_seed + 1000000 on, the validation's own boards (val starts
 * at 1000000): it then starts past the last validation seed instead, so the warm start never
 * imitates a board validation scores. Other sizes keep their seeds (and their runs).
 */
export function demonstrationResetCount(cfg: RunConfig, groups: number, envs: number): number {
  const start = cfg.es_manager.train.start_seed;
  const { start_seed: valStart, env_groups: valGroups } = cfg.es_manager.val;
  const usual = 1_000_000;
  const [from, to] = [start + usual * groups, start + (usual + maxDemonstrationRounds(cfg, envs)) * groups];
  if (to <= valStart || from >= valStart + valGroups) return usual;
  return Math.ceil((valStart + valGroups - start) / groups);
}

/**
 * The warm start's demonstrations. They come from seeds past any training seed (a reset count of
 * a million), so the warm start never sees the start states PPO trains on. With
 * `warm_start.episodes`, every demonstration starts from its own state: the train split's groups
 * are played as groups of one (a group's copies share a seed, so an expert would repeat itself
 * `group_size` times), round after round until there are that many.
 */
export function collectDemonstrations(options: {
  cfg: RunConfig;
  cm: ContextManager;
  tokenizer: Tokenizer;
  rng: Rng;
  resolveSpec?: EnvSpecResolver;
}): Demonstration[] {
  const { cfg } = options;
  const wanted = cfg.warm_start.episodes;
  const { play, envs } = demonstrationRounds(options);
  const out: Demonstration[] = [];
  if (wanted === null) {
    for (let round = 0; round < DEFAULT_ROUNDS; round++) out.push(...play());
    return out;
  }
  const maxRounds = maxDemonstrationRounds(cfg, envs);
  for (let round = 0; round < maxRounds && out.length < wanted; round++) out.push(...play());
  return out.slice(0, wanted);
}

export function distinctStartsConfig(cfg: RunConfig): RunConfig {
  const train = cfg.es_manager.train;
  const size = train.group_size;
  return {
    ...cfg,
    es_manager: {
      ...cfg.es_manager,
      train: {
        ...train,
        group_size: 1,
        env_groups: train.env_groups * size,
        env_configs: { ...train.env_configs, n_groups: train.env_configs.n_groups.map((n) => n * size) },
      },
    },
  };
}

/** Resets every env of `es`; each episode's context starts with its first observation. */
export function startEpisodes(es: EnvStateManager): ContextTurn[][] {
  es.reset();
  return es.entries.map((entry) => [{ turn: 1, observation: es.episode(entry.envId).initialObservation, actionsLeft: entry.maxActionsPerTraj }]);
}

/**
 * The demonstrator's reply on an env's current turn, minus the response prefix, or null where it
 * has none (no solution from this board). With `warm_start.expert_think: plan` the thinking is the
 * solver's whole remaining solution and the answer its first moves: the model is taught to look
 * ahead, each later move of the plan a target of its own.
 */
export function demonstratedReply(
  cfg: RunConfig,
  template: PromptTemplate,
  es: EnvStateManager,
  envId: number,
  current: ContextTurn,
  mode: DemonstrationMode,
  rng: Rng,
): string | null {
  const entry = es.entries[envId];
  const budget = { turnsLeft: cfg.agent_proxy.max_turn - current.turn + 1, actionsLeft: es.actionsLeft(envId), maxActionsPerTurn: cfg.agent_proxy.max_actions_per_turn };
  const choice = chooseActions(entry.env, entry.prompt.actionNames, mode, budget, rng, entry.tag);
  if (choice === null) return null;
  return formatReply(template, cfg, choice.actions, cfg.warm_start.expert_think === 'plan' ? choice.plan.join(' ') : '');
}

function chooseActions(
  env: Pick<Env, 'solve' | 'planTurn'>,
  actionNames: readonly string[] | null,
  mode: DemonstrationMode,
  budget: TurnBudget,
  rng: Rng,
  tag: string,
): { actions: string[]; plan: string[] } | null {
  const room = Math.max(1, Math.min(budget.maxActionsPerTurn, budget.actionsLeft));
  if (mode === 'expert') {
    // A fixed path where one is optimal; otherwise (slippery ice) the env's plan for this turn.
    const plan = env.solve?.() ?? env.planTurn?.(budget) ?? null;
    return plan && plan.length > 0 ? { actions: plan.slice(0, room), plan } : null;
  }
  if (!actionNames || actionNames.length === 0) {
    throw new Error(
      `warm_start.mode random-valid needs named actions, but env tag '${tag}' takes free text; use warm_start.mode: expert`,
    );
  }
  const count = 1 + rng.int(room);
  const actions = Array.from({ length: count }, () => rng.choice(actionNames));
  return { actions, plan: actions };
}
