/**
 * Prompt templates. A template says what each part of an episode's conversation reads like
 * (system message, env prefix, one turn's state, a reward) and how chat messages become flat
 * text. The context manager assembles them; nothing here tokenizes.
 */

import type { RunConfig } from '../config/schema';

export type TemplateName = 'ragen' | 'compact';
export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** What the first user message says about the environment. */
export interface EnvPromptInfo {
  instruction: string;
  legend: string;
  /** Null for free-text actions. */
  actionNames: readonly string[] | null;
  maxActionsPerTraj: number;
}

export interface TurnPromptInfo {
  /** 1-based turn number within the episode. */
  turn: number;
  observation: string;
  actionsLeft: number;
  /** The previous turn's actions when they left the observation as it was (a move into a wall). */
  unchangedBy?: readonly string[];
}

export interface PromptTemplate {
  readonly name: TemplateName;
  /** System message, or null for none. */
  system(): string | null;
  /** Start of the first user message, before the first turn shown. */
  envPrefix(env: EnvPromptInfo): string;
  /** A turn's state as user text. */
  turnText(turn: TurnPromptInfo): string;
  /** User text reporting the previous turn's reward. */
  rewardText(reward: number): string;
  /**
   * Text that ends the prompt and opens the model's reply, e.g. `<answer>` in the compact
   * template. The reply is parsed as `responsePrefix + reply`.
   */
  readonly responsePrefix: string;
  /** Flat-text markers around a message of each role. */
  messageStart(role: ChatRole): string;
  messageEnd(role: ChatRole): string;
  /**
   * Text after the assistant's reply. The reply's end marker is the tokenizer's end-of-turn
   * token, which the model generates itself, so it is not repeated here.
   */
  readonly afterReply: string;
  /** How the end-of-turn token reads in flat text (display only; the token itself is generated). */
  readonly endOfTurnText: string;
}

export interface TemplateOptions {
  enableThink: boolean;
  actionSep: string;
  /** Tokens the model may generate per turn (stated in RAGEN's prompt). */
  maxResponseTokens: number;
  /**
   * Compact template: state the actions left under the board (RAGEN's prompt always does). The
   * best move can depend on them (on slippery ice, a safe detour only pays with moves to spare).
   */
  showActionsLeft?: boolean;
  /**
   * Say under the state which actions of the previous turn left it unchanged. With a one-turn
   * window the policy otherwise cannot tell a board it just failed to change from a new one.
   */
  showUnchanged?: boolean;
}

/** The previous turn's actions that changed nothing, when the template says so. */
function unchangedActions(turn: TurnPromptInfo, options: TemplateOptions): string | null {
  return options.showUnchanged && turn.unchangedBy?.length ? turn.unchangedBy.join(` ${options.actionSep} `) : null;
}

/** Rewards are printed without float noise (0.30000000000000004 reads as 0.3). */
export function formatReward(reward: number): string {
  return String(Number(reward.toFixed(4)));
}

/** RAGEN's prompt: ChatML messages, a long instruction, and the format reminder every turn. */
export function ragenTemplate(options: TemplateOptions): PromptTemplate {
  const format = options.enableThink
    ? '<think> [Your thoughts] </think> <answer> [your answer] </answer>'
    : '<answer> [your answer] </answer>';
  return {
    name: 'ragen',
    system: () => "You're a helpful assistant.",
    envPrefix(env) {
      let text = env.instruction;
      if (env.legend) text += `\nThe meaning of each symbol in the state is:\n${env.legend}`;
      if (env.actionNames) {
        text += `\nYour available actions are:\n${env.actionNames.join(', ')}`;
      }
      // RAGEN states the action budget only where actions are named; a free-text answer is one.
      if (env.actionNames) text += `\nYou can make up to ${env.maxActionsPerTraj} actions, separated by the action separator " ${options.actionSep} "`;
      return `${text}\n`;
    },
    turnText(turn) {
      const unchanged = unchangedActions(turn, options);
      return (
        `\nTurn ${turn.turn}:\nState:\n${turn.observation}\n` +
        (unchanged !== null ? `Your last actions (${unchanged}) did not change the state.\n` : '') +
        `You have ${turn.actionsLeft} actions left. ` +
        `Always output: ${format} with no extra text. Strictly follow this format. ` +
        `Max response length: ${options.maxResponseTokens} words (tokens).\n`
      );
    },
    rewardText: (reward) => `Reward:\n${formatReward(reward)}\n`,
    // RAGEN opens the reply with the tag it expects first, so a pretrained model is not
    // penalised for leaving it out; the reply is parsed with it.
    responsePrefix: openingTag(options.enableThink),
    messageStart: (role) => `<|im_start|>${role}\n`,
    messageEnd: () => '<|im_end|>\n',
    afterReply: '\n',
    endOfTurnText: '<|im_end|>',
  };
}

/**
 * For small models trained from scratch: no system message, no instruction, no format reminder;
 * the state between short markers, and the prompt opens the reply's first tag so the model only
 * writes the content and the closing tag.
 */
export function compactTemplate(options: TemplateOptions): PromptTemplate {
  return {
    name: 'compact',
    system: () => null,
    envPrefix: () => '',
    turnText(turn) {
      const unchanged = unchangedActions(turn, options);
      return (
        `<obs>\n${turn.observation}\n` +
        (options.showActionsLeft ? `<left>${turn.actionsLeft}\n` : '') +
        (unchanged !== null ? `<same>${unchanged}\n` : '')
      );
    },
    rewardText: (reward) => `<r>${formatReward(reward)}\n`,
    responsePrefix: openingTag(options.enableThink),
    messageStart: () => '',
    messageEnd: () => '',
    afterReply: '\n',
    endOfTurnText: '',
  };
}

/** The template a run's config asks for. */
export function templateOf(cfg: Pick<RunConfig, 'agent_proxy' | 'actor_rollout_ref'>): PromptTemplate {
  return createTemplate(cfg.agent_proxy.template, {
    enableThink: cfg.agent_proxy.enable_think,
    actionSep: cfg.agent_proxy.action_sep,
    maxResponseTokens: cfg.actor_rollout_ref.rollout.response_length,
    showActionsLeft: cfg.agent_proxy.show_actions_left,
    showUnchanged: cfg.agent_proxy.show_unchanged,
  });
}

export function createTemplate(name: TemplateName, options: TemplateOptions): PromptTemplate {
  return name === 'ragen' ? ragenTemplate(options) : compactTemplate(options);
}

/** The tag a reply is opened with: the first one the format expects, as RAGEN writes it. */
function openingTag(enableThink: boolean): string {
  return enableThink ? '<think>' : '<answer>';
}

/** The text a template's prompts open each reply with (replay and exports show it before the reply). */
export function responsePrefixOf(name: TemplateName, enableThink: boolean): string {
  // Only the prefix is read, which depends on neither the separator nor the token budget.
  return createTemplate(name, { enableThink, actionSep: '||', maxResponseTokens: 1 }).responsePrefix;
}
