/**
 * A pretrained model's prompts in its own chat format: the role markers of a PromptTemplate are
 * read off the model's chat template, so the ContextManager's incremental segments (which keep
 * the ids the model sampled) concatenate to exactly what the template renders for the same
 * conversation. The markers are found by rendering one conversation with sentinel contents and
 * cutting the text around them.
 */
import type { ChatMessage, ChatRole, PromptTemplate } from './templates';

/** Renders chat messages as the model's template does (transformers' apply_chat_template). */
export interface ChatRenderer {
  render(messages: readonly ChatMessage[], addGenerationPrompt: boolean): string;
  /** The end-of-turn token as text (`<|im_end|>`), which the model generates after each reply. */
  readonly endOfTurnText: string;
}

export class ChatTemplateError extends Error {
  override name = 'ChatTemplateError';
}

interface RoleMarkers {
  systemStart: string;
  systemEnd: string;
  userStart: string;
  /** The user message's end and the assistant reply's opening (the generation prompt). */
  userEnd: string;
}

/** Sentinels of one length, so a cut after any of them skips the same number of characters. */
const SENTINELS = { system: '\u27e6S\u27e7', user: '\u27e6U\u27e7', assistant: '\u27e6A\u27e7', next: '\u27e6V\u27e7' };

export function chatRoleMarkers(chat: ChatRenderer): RoleMarkers {
  const text = chat.render(
    [
      { role: 'system', content: SENTINELS.system },
      { role: 'user', content: SENTINELS.user },
      { role: 'assistant', content: SENTINELS.assistant },
      { role: 'user', content: SENTINELS.next },
    ],
    true,
  );
  const cuts = [SENTINELS.system, SENTINELS.user, SENTINELS.assistant, SENTINELS.next].map((s) => text.indexOf(s));
  if (cuts.some((c) => c < 0) || cuts.some((c, i) => i > 0 && c < cuts[i - 1])) {
    throw new ChatTemplateError('the chat template does not render a system, user, assistant, user conversation in order; TurnLab cannot build multi-turn prompts with it');
  }
  const width = SENTINELS.system.length;
  const between = (i: number) => text.slice(cuts[i] + width, cuts[i + 1]);
  const systemStart = text.slice(0, cuts[0]);
  const systemToUser = between(0);
  const userToAssistant = between(1);
  const assistantToUser = between(2);
  const generationPrompt = text.slice(cuts[3] + width);
  if (generationPrompt !== userToAssistant) {
    throw new ChatTemplateError(
      `the chat template opens a reply with ${JSON.stringify(generationPrompt)} but shows a past reply after ${JSON.stringify(userToAssistant)}; ` +
        'multi-turn prompts need both the same',
    );
  }
  if (!assistantToUser.startsWith(chat.endOfTurnText)) {
    throw new ChatTemplateError(
      `the chat template ends a reply with ${JSON.stringify(assistantToUser)}, not with the end-of-turn token ${JSON.stringify(chat.endOfTurnText)} the model generates`,
    );
  }
  const userStart = assistantToUser.slice(chat.endOfTurnText.length);
  if (!systemToUser.endsWith(userStart)) {
    throw new ChatTemplateError(`the chat template opens a user message after the system message differently (${JSON.stringify(systemToUser)}) than after a reply`);
  }
  return { systemStart, systemEnd: systemToUser.slice(0, systemToUser.length - userStart.length), userStart, userEnd: userToAssistant };
}

/**
 * The template's words with the model's markers. A template without a system message gets an
 * empty one, so the first user message opens as every later one does.
 */
export function withChatMarkers(template: PromptTemplate, chat: ChatRenderer): PromptTemplate {
  const m = chatRoleMarkers(chat);
  const starts: Record<ChatRole, string> = { system: m.systemStart, user: m.userStart, assistant: '' };
  const ends: Record<ChatRole, string> = { system: m.systemEnd, user: m.userEnd, assistant: '' };
  return {
    ...template,
    system: () => template.system() ?? '',
    messageStart: (role) => starts[role],
    messageEnd: (role) => ends[role],
    afterReply: '',
    endOfTurnText: chat.endOfTurnText,
  };
}
