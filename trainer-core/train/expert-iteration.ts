import type { RunConfig } from '../config/schema';
import { nextContextTurn, type ContextManager, type ContextTurn } from '../rollout/context-manager';
import { buildEpisodeSequence } from '../rollout/episode-sequence';
import { EnvStateManager, type EnvSpecResolver } from '../rollout/es-manager';
import { createContextManager, rolloutSettingsFromConfig, runRollout, type EpisodeRecord, type ResponseGenerator } from '../rollout/rollout-loop';
import type { Tokenizer } from '../rollout/tokenizer';
import { PolicyGenerator } from '../model/policy-generator';
import { ShardedGenerator } from '../workers/sharded-generator';
import type { TrainableModel } from '../model/trainable-model';
import { deriveSeed, Rng } from '../rng';
import { distinctStartsConfig, type Demonstration } from './demonstrations';
import { hindsightTurns, plansKept } from './hindsight-plans';
import type { Parallel } from './micro-batch-runner';
import type { ExpertIterationRound } from './sink';
import { warmStart, WarmStartStopped } from './warm-start';

/**
 * Expert iteration from the policy's own successes (`expert_iteration`; ReST-EM, Singh et al.
 * 2023; RAFT, Dong et al. 2023): the policy plays new start states at the rollout temperature,
 * the episodes the environment scored as solved join a pool, and the policy is fitted to the
 * pool with the warm start's supervised loss. The reward is the only teacher: nothing comes from
 * a solver. A policy-gradient step on a board-blind start moves each move's probability on every
 * board at once (bench/sokoban-notes.md); a supervised step on solved episodes gives each board
 * its own target, and the pool keeps every success found so far (or of the last `pool_rounds`
 * rounds), so rare early ones are not seen once and forgotten.
 */
export interface PlayedRound {
  demonstrations: Demonstration[];
  played: number;
  solved: number;
  /** Turns kept as training documents, after `prune_revisits`. */
  turns: number;
  /** Episodes solved of all tries (with one try, `solved`). */
  solvedTries: number;
  /** Kept turns whose sampled thinking was the moves the episode went on to play (with thinking on). */
  plansKept: number;
  /** A stop request ended the round before it had played everything. */
  stopped?: boolean;
}

/**
 * A solved episode's turns worth imitating. With `pruneRevisits`, a board seen again cuts the
 * turns since its first visit: a loop (a move into a wall changes nothing, a walk there and back)
 * taught nothing but delay, and the move made on the later visit is the one that led on to the
 * solution. The board is the observation alone, so a revisit with fewer moves left is still a loop.
 */
export function keptTurns(episode: Pick<EpisodeRecord, 'turns'>, pruneRevisits: boolean): ContextTurn[] {
  const turns: ContextTurn[] = episode.turns.map((t, k) => {
    const previous = episode.turns[k - 1];
    // Pruning cuts every turn that changed nothing, so only an unpruned episode says so.
    const shown: ContextTurn =
      previous && !pruneRevisits
        ? nextContextTurn({ observation: previous.observationBefore }, previous, t.actionsLeftBefore)
        : { turn: t.turn, observation: t.observationBefore, actionsLeft: t.actionsLeftBefore };
    return { ...shown, reply: { generatedIds: t.generatedIds, logprobs: t.logprobs, text: t.responseText, reward: t.envReward } };
  });
  if (!pruneRevisits) return turns;
  const kept: ContextTurn[] = [];
  const firstVisit = new Map<string, number>();
  for (const turn of turns) {
    const at = firstVisit.get(turn.observation);
    if (at !== undefined) for (const dropped of kept.splice(at)) firstVisit.delete(dropped.observation);
    firstVisit.set(turn.observation, kept.length);
    kept.push(turn);
  }
  return kept;
}

/** Reset count of expert iteration's start states: past the warm start's (a million), DAgger's (two) and any training run's. */
const EXPERT_ITERATION_RESETS = 3_000_000;

/**
 * The training split laid out for `expert_iteration.tries`: each rollout plays as many envs as a
 * training rollout, in groups of `tries` that share a start state (the config check has made sure
 * `tries` divides each tag's envs). One try is the warm start's layout, every env its own start.
 */
export function triesConfig(cfg: RunConfig, tries: number): RunConfig {
  const distinct = distinctStartsConfig(cfg);
  if (tries === 1) return distinct;
  const train = distinct.es_manager.train;
  return {
    ...distinct,
    es_manager: {
      ...distinct.es_manager,
      train: {
        ...train,
        group_size: tries,
        env_groups: train.env_groups / tries,
        env_configs: { ...train.env_configs, n_groups: train.env_configs.n_groups.map((n) => n / tries) },
      },
    },
  };
}

/** The solved try to imitate: the fewest turns once loops are cut, then the fewest generated tokens, then the first. */
export function bestSolved(tries: EpisodeRecord[], prune: boolean): { episode: EpisodeRecord; turns: ContextTurn[] } | null {
  let best: { episode: EpisodeRecord; turns: ContextTurn[]; tokens: number } | null = null;
  for (const episode of tries) {
    if (!episode.success) continue;
    const turns = keptTurns(episode, prune);
    const tokens = turns.reduce((n, t) => n + (t.reply?.generatedIds.length ?? 0), 0);
    if (!best || turns.length < best.turns.length || (turns.length === best.turns.length && tokens < best.tokens)) best = { episode, turns, tokens };
  }
  return best;
}

/**
 * One round: the policy plays `expert_iteration.episodes` start states no other round played,
 * each `expert_iteration.tries` times; a start state solved by any try comes back as one
 * demonstration (one solved by every try does not, with `drop_all_solved`).
 */
export async function playSolvedEpisodes(options: {
  cfg: RunConfig;
  cm: ContextManager;
  tokenizer: Tokenizer;
  /** A generator for each rollout of the round (one ends its shards' state when the rollout ends). */
  generator: () => ResponseGenerator;
  /** From 1. */
  round: number;
  resolveSpec?: EnvSpecResolver;
  /** Polled between the round's rollouts: true ends the round there, `stopped`. */
  shouldStop?: () => boolean;
}): Promise<PlayedRound> {
  const { cfg, cm, tokenizer, generator } = options;
  const { episodes, prune_revisits: prune, tries, drop_all_solved: dropAllSolved, think } = cfg.expert_iteration;
  const playCfg = triesConfig(cfg, tries);
  const es = new EnvStateManager(playCfg, 'train', { resolveSpec: options.resolveSpec });
  const startsPerRollout = es.entries.length / tries;
  const rollouts = Math.ceil(episodes / startsPerRollout);
  es.restoreState({ resetCount: EXPERT_ITERATION_RESETS + (options.round - 1) * rollouts });
  const settings = rolloutSettingsFromConfig(playCfg, 'train');
  const starts: EpisodeRecord[][] = [];
  for (let r = 0; r < rollouts; r++) {
    await new Promise((resolve) => setImmediate(resolve));
    if (options.shouldStop?.()) return { demonstrations: [], played: 0, solved: 0, turns: 0, solvedTries: 0, plansKept: 0, stopped: true };
    const result = await runRollout({ esManager: es, contextManager: cm, tokenizer, generator: generator(), settings });
    const groups = new Map<number, EpisodeRecord[]>();
    for (const episode of result.episodes) groups.set(episode.groupId, [...(groups.get(episode.groupId) ?? []), episode]);
    starts.push(...[...groups.keys()].sort((a, b) => a - b).map((g) => groups.get(g) ?? []));
  }
  const round: PlayedRound = { demonstrations: [], played: 0, solved: 0, turns: 0, solvedTries: 0, plansKept: 0 };
  const thinking = cfg.agent_proxy.enable_think;
  for (const group of starts.slice(0, episodes)) {
    round.played++;
    const solvedTries = group.filter((e) => e.success).length;
    round.solvedTries += solvedTries;
    const best = bestSolved(group, prune);
    if (!best) continue;
    round.solved++;
    if (dropAllSolved && solvedTries === group.length) continue;
    round.turns += best.turns.length;
    const relabelled = thinking ? hindsightTurns(best.turns, best.episode.turns, cfg, cm.template, tokenizer) : best.turns;
    round.plansKept += plansKept(best.turns, relabelled);
    const turns = think === 'hindsight' ? relabelled : best.turns;
    const prompt = es.entries[best.episode.envId].prompt;
    round.demonstrations.push({
      tag: best.episode.tag,
      text: cm.flatText(prompt, turns),
      sequence: buildEpisodeSequence(cm.trainingDocuments(prompt, turns), { mode: 'episode-end', total: 0 }),
    });
  }
  return round;
}

/**
 * The rounds of `expert_iteration` on a new run's policy, after its warm start: each round plays,
 * grows the pool (of the last `pool_rounds` rounds) and fits the policy to the whole pool for
 * `expert_iteration.steps` supervised steps (a fresh Adam each round, as each round's pool is a
 * new dataset).
 */
export async function runExpertIteration(options: {
  cfg: RunConfig;
  policy: TrainableModel;
  tokenizer: Tokenizer;
  parallel?: Parallel;
  log?: (line: string) => void;
  shouldStop?: () => boolean;
  resolveSpec?: EnvSpecResolver;
  /** Called with round 0 before the first round and after each round, with its fit's loss. */
  onRound?: (round: number, rounds: number, loss: number | null) => void | Promise<void>;
}): Promise<ExpertIterationRound[]> {
  const { cfg, policy, tokenizer } = options;
  const { rounds, steps, lr, batch_size: batchSize } = cfg.expert_iteration;
  const cm = createContextManager(cfg, tokenizer);
  const sampling = new Rng(deriveSeed(cfg.trainer.seed, 'expert-iteration'));
  const fitting = new Rng(deriveSeed(cfg.trainer.seed, 'expert-iteration-fit'));
  // Each round's solved episodes, oldest first; `pool_rounds` keeps the newest few, so a late round's
  // successes are not a small share of every older round's.
  const byRound: Demonstration[][] = [];
  const reports: ExpertIterationRound[] = [];
  const prefixReuse = cfg.actor_rollout_ref.rollout.prefix_reuse;
  // On the worker threads too, as the training rollouts: each shard with a stream drawn from `sampling`.
  const generator = () =>
    options.parallel
      ? new ShardedGenerator(policy, options.parallel.pool, sampling.nextU32(), tokenizer.padId, { prefixReuse })
      : new PolicyGenerator(policy, sampling, tokenizer.padId, { prefixReuse });
  await options.onRound?.(0, rounds, null);
  for (let round = 1; round <= rounds; round++) {
    const { resolveSpec, shouldStop } = options;
    const played = await playSolvedEpisodes({ cfg, cm, tokenizer, generator, round, resolveSpec, shouldStop });
    if (played.stopped) throw new WarmStartStopped(0, steps, `expert iteration round ${round}`);
    byRound.push(played.demonstrations);
    if (cfg.expert_iteration.pool_rounds !== null && byRound.length > cfg.expert_iteration.pool_rounds) byRound.shift();
    const pool = byRound.flat();
    const rate = played.solved / Math.max(1, played.played);
    const fit =
      pool.length === 0
        ? null
        : await warmStart({
            policy,
            demonstrations: pool,
            steps,
            lr,
            batchSize: batchSize ?? cfg.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu,
            gradClip: cfg.actor_rollout_ref.actor.grad_clip,
            rng: fitting,
            parallel: options.parallel,
            shouldStop: options.shouldStop,
            log: options.log,
          });
    if (fit?.stoppedAfter !== undefined) throw new WarmStartStopped(fit.stoppedAfter, steps, `expert iteration round ${round}`);
    const loss = fit ? `, loss ${fit.finalLoss.toFixed(4)}` : ', nothing to fit yet';
    reports.push({ round, rounds, played: played.played, solved: played.solved, pool: pool.length, loss: fit ? fit.finalLoss : null });
    await options.onRound?.(round, rounds, fit ? fit.finalLoss : null);
    const { tries } = cfg.expert_iteration;
    const triesNote = tries > 1 ? ` in ${tries} tries each, ${(played.solvedTries / Math.max(1, played.played * tries)).toFixed(3)} of the tries` : '';
    const plansNote = cfg.agent_proxy.enable_think ? ` (${played.plansKept} of them thought the moves they went on to play)` : '';
    options.log?.(
      `expert iteration: round ${round}/${rounds}, the policy solved ${played.solved} of ${played.played} new start states (${rate.toFixed(3)})${triesNote}, ${played.turns} turns kept${plansNote}; pool ${pool.length} episodes${loss}`,
    );
  }
  return reports;
}
