import { describe, expect, it } from 'vitest';
import { ContextManager, type ContextTurn } from '../../trainer-core/rollout/context-manager';
import { createTemplate, type EnvPromptInfo } from '../../trainer-core/rollout/templates';
import { CharTokenizer } from './helpers';

const tok = new CharTokenizer();
const env: EnvPromptInfo = { instruction: 'Walk to the goal.', legend: 'P: player', actionNames: ['Left', 'Right'], maxActionsPerTraj: 10 };

function manager(template: 'ragen' | 'compact', enableThink = true, maxContextWindow: number | null = null): ContextManager {
  return new ContextManager(createTemplate(template, { enableThink, actionSep: '||', maxResponseTokens: 100 }), tok, {
    maxContextWindow,
    enableThink,
    actionSep: '||',
    maxActionsPerTurn: 5,
  });
}

function answered(turn: number, text: string, reward: number): ContextTurn {
  const ids = [...tok.encode(text), tok.endOfTurnId];
  return { turn, observation: `obs${turn}`, actionsLeft: 11 - turn, reply: { generatedIds: ids, logprobs: ids.map(() => -1), text, reward } };
}

describe('ragen template', () => {
  it('builds RAGEN messages: system, instruction with legend, actions and budget, turns and rewards', () => {
    const cm = manager('ragen');
    const turns = [answered(1, '<think>a</think><answer>Right</answer>', 0), { turn: 2, observation: 'obs2', actionsLeft: 9 }];
    const messages = cm.messages(env, turns);
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[0].content).toBe("You're a helpful assistant.");
    expect(messages[1].content).toContain('Walk to the goal.\nThe meaning of each symbol in the state is:\nP: player');
    expect(messages[1].content).toContain('Your available actions are:\nLeft, Right');
    expect(messages[1].content).toContain('You can make up to 10 actions, separated by the action separator " || "');
    expect(messages[1].content).toContain(
      '\nTurn 1:\nState:\nobs1\nYou have 10 actions left. Always output: <think> [Your thoughts] </think> <answer> [your answer] </answer> with no extra text. Strictly follow this format. Max response length: 100 words (tokens).\n',
    );
    expect(messages[3].content.startsWith('Reward:\n0\n\nTurn 2:\nState:\nobs2\nYou have 9 actions left.')).toBe(true);
  });

  it("says under the state which of the last turn's actions left it unchanged, when asked", () => {
    const turn = { turn: 2, observation: 'o', actionsLeft: 3, unchangedBy: ['Left', 'Up'] };
    const template = (showUnchanged: boolean) => createTemplate('ragen', { enableThink: true, actionSep: '||', maxResponseTokens: 100, showUnchanged });
    expect(template(true).turnText(turn)).toContain('State:\no\nYour last actions (Left || Up) did not change the state.\nYou have 3 actions left.');
    expect(template(false).turnText(turn)).toContain('State:\no\nYou have 3 actions left.');
    expect(template(true).turnText({ ...turn, unchangedBy: undefined })).toContain('State:\no\nYou have 3 actions left.');
  });

  it('asks for the answer tag alone when thinking is off', () => {
    const text = manager('ragen', false).flatText(env, [{ turn: 1, observation: 'o', actionsLeft: 3 }]);
    expect(text).toContain('Always output: <answer> [your answer] </answer> with no extra text.');
    expect(text).not.toContain('<think>');
  });

  it('renders flat text with chat markers, ending where the model replies', () => {
    const text = manager('ragen').flatText(env, [{ turn: 1, observation: 'o', actionsLeft: 3 }]);
    expect(text.startsWith("<|im_start|>system\nYou're a helpful assistant.<|im_end|>\n<|im_start|>user\nWalk")).toBe(true);
    // RAGEN opens the reply with the tag it expects first.
    expect(text.endsWith('<|im_end|>\n<|im_start|>assistant\n<think>')).toBe(true);
    expect(manager('ragen', false).flatText(env, [{ turn: 1, observation: 'o', actionsLeft: 3 }]).endsWith('assistant\n<answer>')).toBe(true);
  });
});

describe('compact template', () => {
  it('has no boilerplate and opens the answer tag in the prompt', () => {
    const cm = manager('compact', false);
    const turns = [answered(1, 'Right</answer>', 0.5), { turn: 2, observation: 'obs2', actionsLeft: 9 }];
    expect(cm.flatText(env, turns)).toBe('<obs>\nobs1\n<answer>Right</answer>\n<r>0.5\n<obs>\nobs2\n<answer>');
    expect(cm.parse('Right</answer>', env.actionNames).validActions).toEqual(['Right']);
  });

  it('states the actions left under each board when show_actions_left is on', () => {
    const cm = new ContextManager(createTemplate('compact', { enableThink: false, actionSep: '||', maxResponseTokens: 100, showActionsLeft: true }), tok, {
      maxContextWindow: null,
      enableThink: false,
      actionSep: '||',
      maxActionsPerTurn: 5,
    });
    const turns = [answered(1, 'Right</answer>', 0.5), { turn: 2, observation: 'obs2', actionsLeft: 9 }];
    expect(cm.flatText(env, turns)).toBe('<obs>\nobs1\n<left>10\n<answer>Right</answer>\n<r>0.5\n<obs>\nobs2\n<left>9\n<answer>');
  });

  it('opens the think tag when thinking is on', () => {
    const cm = manager('compact', true);
    expect(cm.flatText(env, [{ turn: 1, observation: 'x', actionsLeft: 1 }]).endsWith('<think>')).toBe(true);
    expect(cm.parse('plan</think><answer>left</answer>', env.actionNames).validActions).toEqual(['Left']);
  });
});

describe('context window', () => {
  it('keeps only the last k turns, dropping the reward of the turn before the window', () => {
    const cm = manager('ragen', true, 2);
    const turns = [answered(1, 'R1', 0.1), answered(2, 'R2', 0.2), { turn: 3, observation: 'obs3', actionsLeft: 8 }];
    const text = cm.flatText(env, turns);
    expect(text).not.toContain('obs1');
    expect(text).not.toContain('R1');
    expect(text).not.toContain('Reward:\n0.1');
    expect(text).toContain('Turn 2:\nState:\nobs2');
    expect(text).toContain('R2<|im_end|>\n<|im_start|>user\nReward:\n0.2\n\nTurn 3:');
    expect(cm.windowStart(3)).toBe(1);
  });

  it('keeps every turn without a window', () => {
    const cm = manager('ragen');
    expect(cm.windowStart(7)).toBe(0);
  });
});

describe('context ids', () => {
  it('grow by appending: each turn context extends the previous one with the sampled ids', () => {
    const cm = manager('ragen');
    const one = cm.contextIds(env, [{ turn: 1, observation: 'obs1', actionsLeft: 10 }]);
    const first = answered(1, 'reply', 0);
    const two = cm.contextIds(env, [first, { turn: 2, observation: 'obs2', actionsLeft: 9 }]);
    expect(two.slice(0, one.length)).toEqual(one);
    expect(two.slice(one.length, one.length + first.reply!.generatedIds.length)).toEqual(first.reply!.generatedIds);
  });
});
