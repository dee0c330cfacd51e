/**
 * Renders chat messages with the model's own Jinja chat template (@huggingface/jinja), the
 * text transformers' apply_chat_template produces, so a pretrained instruction model sees its
 * prompts in the format it was tuned on.
 */
import { Template } from '@huggingface/jinja';

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

export interface ChatTemplateOptions {
  /** Append the opening of an assistant turn (`<|im_start|>assistant\n`). */
  addGenerationPrompt?: boolean;
  bosToken?: string | null;
  eosToken?: string | null;
  /** Extra template variables (Qwen3's `enable_thinking`). */
  extra?: Record<string, unknown>;
}

export class ChatTemplate {
  private readonly template: Template;

  constructor(source: string) {
    this.template = new Template(source);
  }

  render(messages: readonly ChatMessage[], options: ChatTemplateOptions = {}): string {
    return this.template.render({
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      add_generation_prompt: options.addGenerationPrompt ?? false,
      bos_token: options.bosToken ?? '',
      eos_token: options.eosToken ?? '',
      ...options.extra,
    });
  }
}
