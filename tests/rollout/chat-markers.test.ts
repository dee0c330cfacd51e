// Prompts of a pretrained model in its own chat format: the context the ContextManager builds
// from separately encoded pieces and the ids the model sampled is, as text, exactly what the
// model's Jinja chat template renders for the same conversation.
import { describe, expect, it } from 'vitest';
import { HfTokenizer } from '../../trainer-core/model/hf/tokenizer';
import { ChatTemplateError, withChatMarkers, type ChatRenderer } from '../../trainer-core/rollout/chat-markers';
import { ContextManager, type ContextTurn } from '../../trainer-core/rollout/context-manager';
import { createTemplate, type EnvPromptInfo, type TemplateName } from '../../trainer-core/rollout/templates';
import { qwenTokenizerDir } from '../../scripts/hf-random-model';

const env: EnvPromptInfo = { instruction: 'Reach the goal G.', legend: 'P: you, G: goal', actionNames: ['Left', 'Right'], maxActionsPerTraj: 10 };

async function qwenManager(name: TemplateName): Promise<{ cm: ContextManager; tokenizer: HfTokenizer }> {
  const tokenizer = await HfTokenizer.load(qwenTokenizerDir());
  const words = createTemplate(name, { enableThink: true, actionSep: '||', maxResponseTokens: 50 });
  const template = withChatMarkers(words, tokenizer.chat!);
  return { cm: new ContextManager(template, tokenizer, { maxContextWindow: null, enableThink: true, actionSep: '||', maxActionsPerTurn: 5 }), tokenizer };
}

function reply(tokenizer: HfTokenizer, turn: number, text: string): ContextTurn {
  const ids = [...tokenizer.encode(text), tokenizer.endOfTurnId];
  return { turn, observation: `P_G row ${turn}`, actionsLeft: 11 - turn, reply: { generatedIds: ids, logprobs: ids.map(() => -1), text, reward: 0.5 } };
}

describe("a pretrained model's chat template", () => {
  it('gives the context the text the template renders for the same two-turn conversation', async () => {
    const { cm, tokenizer } = await qwenManager('ragen');
    // A reply without thoughts: Qwen3's template drops earlier turns' <think> blocks, while the
    // context keeps every sampled id, so that the policy is trained in the context it acted in.
    const turns: ContextTurn[] = [reply(tokenizer, 1, '<answer>Right</answer>'), { turn: 2, observation: 'PG', actionsLeft: 9 }];
    const rendered = tokenizer.chat!.render(cm.messages(env, turns), true);
    // RAGEN opens the reply with <think> after the template's generation prompt.
    expect(tokenizer.decode(cm.contextIds(env, turns))).toBe(`${rendered}<think>`);
    expect(rendered.startsWith("<|im_start|>system\nYou're a helpful assistant.<|im_end|>\n<|im_start|>user\nReach the goal G.")).toBe(true);
    expect(rendered.endsWith('<|im_end|>\n<|im_start|>assistant\n')).toBe(true);
    // The sampled ids are kept as they were, end-of-turn token included.
    expect(cm.contextIds(env, turns)).toEqual(expect.arrayContaining(turns[0].reply!.generatedIds as number[]));
  });

  it('decodes a reply that was only the end-of-turn token as empty text', async () => {
    const tokenizer = await HfTokenizer.load(qwenTokenizerDir());
    expect(tokenizer.decode([])).toBe('');
    expect(tokenizer.decode(tokenizer.encode('Left'))).toBe('Left');
  });

  it('opens a template without a system message with an empty one', async () => {
    const { cm, tokenizer } = await qwenManager('compact');
    const text = tokenizer.decode(cm.contextIds(env, [{ turn: 1, observation: 'PG', actionsLeft: 3 }]));
    expect(text).toBe('<|im_start|>system\n<|im_end|>\n<|im_start|>user\n<obs>\nPG\n<|im_end|>\n<|im_start|>assistant\n<think>');
  });

  it('refuses a template whose past replies do not end with the end-of-turn token', () => {
    const chat: ChatRenderer = {
      render: (messages, gen) => messages.map((m) => `[${m.role}] ${m.content}\n`).join('') + (gen ? '[assistant] ' : ''),
      endOfTurnText: '</s>',
    };
    const words = createTemplate('ragen', { enableThink: true, actionSep: '||', maxResponseTokens: 50 });
    expect(() => withChatMarkers(words, chat)).toThrow(ChatTemplateError);
  });
});
