import type { RunConfig } from '../config/schema';
import type { Rng } from '../rng';
import { nextContextTurn, type ContextManager } from '../rollout/context-manager';
import { EnvStateManager, type EnvSpecResolver } from '../rollout/es-manager';
import { rolloutSettingsFromConfig, type ResponseGenerator } from '../rollout/rollout-loop';
import { templateOf } from '../rollout/templates';
import type { Tokenizer } from '../rollout/tokenizer';
import { demonstratedReply, distinctStartsConfig, startEpisodes, toDemonstrations, type Demonstration } from './demonstrations';

/**
 * DAgger (Ross, Gordon and Bagnell, 2011) for the expert warm start: the policy plays rooms of
 * its own and every board it reaches is labelled with the solver's move from there. Pure
 * imitation only shows the boards on the solver's path; after one wrong move the learner stands
 * on a board no demonstration covered and rarely recovers (on Sokoban more than half of the
 * warm-started policy's failures were still solvable after its first mistake).
 *
 * The episode moves by the policy's reply while the demonstration records the solver's reply,
 * so the training documents show the boards the policy reaches with the answers it should give.
 * With a context window wider than one turn the earlier turns in a prompt are the solver's
 * replies, in sampling and in training alike. A board the solver cannot finish from (a box
 * pushed into a corner) ends the episode there: no label exists for it.
 */
export async function playRelabelledEpisodes(options: {
  cfg: RunConfig;
  cm: ContextManager;
  tokenizer: Tokenizer;
  generator: ResponseGenerator;
  /** Where this round's rooms start in the seed schedule (a reset count); each round calls with its own. */
  firstReset: number;
  /** DAgger round, from 1: the round plays rooms no other round played. */
  round: number;
  episodes: number;
  rng: Rng;
  resolveSpec?: EnvSpecResolver;
}): Promise<Demonstration[]> {
  const { cfg, cm, tokenizer, generator } = options;
  const playCfg = distinctStartsConfig(cfg);
  const es = new EnvStateManager(playCfg, 'train', { resolveSpec: options.resolveSpec });
  // A round takes ceil(episodes / rooms per rollout) rollouts of the seed schedule.
  es.restoreState({ resetCount: options.firstReset + (options.round - 1) * Math.ceil(options.episodes / es.entries.length) });
  const out: Demonstration[] = [];
  try {
    while (out.length < options.episodes) {
      out.push(...(await playRound(playCfg, es, cm, tokenizer, generator, options.rng)));
    }
  } finally {
    generator.release?.();
  }
  return out.slice(0, options.episodes);
}

async function playRound(
  cfg: RunConfig,
  es: EnvStateManager,
  cm: ContextManager,
  tokenizer: Tokenizer,
  generator: ResponseGenerator,
  rng: Rng,
): Promise<Demonstration[]> {
  const settings = rolloutSettingsFromConfig(cfg, 'train');
  const template = templateOf(cfg);
  const stopSequences = settings.stop.map((text) => tokenizer.encode(text));
  const contexts = startEpisodes(es);
  const usable = es.entries.map(() => true);
  for (;;) {
    const active = es.activeEnvIds();
    if (active.length === 0) break;
    const asked: { envId: number; expert: string }[] = [];
    for (const envId of active) {
      const current = contexts[envId][contexts[envId].length - 1];
      const expert = demonstratedReply(cfg, template, es, envId, current, 'expert', rng);
      if (expert === null) {
        // The turns before this board keep their labels; the episode ends here.
        if (current.turn === 1) usable[envId] = false;
        es.endEpisode(envId, 'max-turn');
        continue;
      }
      asked.push({ envId, expert });
    }
    if (asked.length === 0) continue;
    const responses = await generator.generate(
      asked.map(({ envId }) => cm.contextIds(es.entries[envId].prompt, contexts[envId])),
      {
        ...settings.sampling,
        maxNewTokens: asked.map(() => settings.responseLength),
        stopTokenId: tokenizer.endOfTurnId,
        stopSequences,
        rowKeys: asked.map(({ envId }) => envId),
      },
    );
    asked.forEach(({ envId, expert }, i) => {
      const ids = responses[i].tokenIds;
      const ended = ids[ids.length - 1] === tokenizer.endOfTurnId;
      const played = tokenizer.decode(ended ? ids.slice(0, -1) : ids);
      const entry = es.entries[envId];
      const current = contexts[envId][contexts[envId].length - 1];
      const outcome = es.step(envId, cm.parse(played, entry.prompt.actionNames));
      const replyIds = [...tokenizer.encode(expert), tokenizer.endOfTurnId];
      current.reply = { generatedIds: replyIds, logprobs: replyIds.map(() => 0), text: expert, reward: outcome.envReward };
      if (!outcome.done) {
        contexts[envId].push(nextContextTurn(current, outcome, es.actionsLeft(envId)));
      }
    });
  }
  return toDemonstrations(es, cm, tokenizer, contexts, usable);
}
