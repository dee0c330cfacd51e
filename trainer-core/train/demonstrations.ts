import type { RunConfig } from '../config/schema';
import type { Rng } from '../rng';
import type { ContextManager, ContextTurn } from '../rollout/context-manager';
import { buildEpisodeSequence, emptyEpisodeSequence, type EpisodeSequence } from '../rollout/episode-sequence';
import type { EnvStateManager } from '../rollout/es-manager';
import { createTemplate, type PromptTemplate } from '../rollout/templates';
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
}

export function templateOf(cfg: RunConfig): PromptTemplate {
  return createTemplate(cfg.agent_proxy.template, {
    enableThink: cfg.agent_proxy.enable_think,
    actionSep: cfg.agent_proxy.action_sep,
    maxResponseTokens: cfg.actor_rollout_ref.rollout.response_length,
  });
}

/** The reply a well-behaved model would write for `actions`, minus the prompt's response prefix. */
export function formatReply(template: PromptTemplate, cfg: RunConfig, actions: readonly string[]): string {
  const think = cfg.agent_proxy.enable_think ? '<think></think>' : '';
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
  const perTurn = cfg.agent_proxy.max_actions_per_turn;
  es.reset();
  const contexts: ContextTurn[][] = es.entries.map((entry) => [
    { turn: 1, observation: es.episode(entry.envId).initialObservation, actionsLeft: entry.maxActionsPerTraj },
  ]);
  const usable = es.entries.map(() => true);
  for (;;) {
    const active = es.activeEnvIds();
    if (active.length === 0) break;
    for (const envId of active) {
      const entry = es.entries[envId];
      const actions = chooseActions(entry.env, entry.prompt.actionNames, mode, perTurn, es.actionsLeft(envId), rng, entry.tag);
      if (actions === null) {
        usable[envId] = false;
        es.endEpisode(envId, 'max-turn');
        continue;
      }
      const text = formatReply(template, cfg, actions);
      const ids = tokenizer ? [...tokenizer.encode(text), tokenizer.endOfTurnId] : [];
      const outcome = es.step(envId, cm.parse(text, entry.prompt.actionNames));
      const current = contexts[envId][contexts[envId].length - 1];
      current.reply = { generatedIds: ids, logprobs: ids.map(() => 0), text, reward: outcome.reward };
      if (!outcome.done) {
        contexts[envId].push({ turn: outcome.turn + 1, observation: outcome.observation, actionsLeft: es.actionsLeft(envId) });
      }
    }
  }
  const out: Demonstration[] = [];
  es.entries.forEach((entry, envId) => {
    const turns = contexts[envId].filter((turn) => turn.reply);
    if (!usable[envId] || turns.length === 0) return;
    const text = cm.flatText(entry.prompt, turns);
    const sequence = tokenizer
      ? buildEpisodeSequence(cm.trainingDocuments(entry.prompt, turns), { mode: 'episode-end', total: 0 })
      : emptyEpisodeSequence();
    out.push({ tag: entry.tag, text, sequence });
  });
  return out;
}

function chooseActions(
  env: { solve?(): string[] | null },
  actionNames: readonly string[] | null,
  mode: DemonstrationMode,
  perTurn: number,
  actionsLeft: number,
  rng: Rng,
  tag: string,
): string[] | null {
  const room = Math.max(1, Math.min(perTurn, actionsLeft));
  if (mode === 'expert') {
    const plan = env.solve?.() ?? null;
    return plan && plan.length > 0 ? plan.slice(0, room) : null;
  }
  if (!actionNames || actionNames.length === 0) {
    throw new Error(
      `warm_start.mode random-valid needs named actions, but env tag '${tag}' takes free text; use warm_start.mode: expert`,
    );
  }
  const count = 1 + rng.int(room);
  return Array.from({ length: count }, () => rng.choice(actionNames));
}
