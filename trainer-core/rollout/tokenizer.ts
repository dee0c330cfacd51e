import type { ChatRenderer } from './chat-markers';

/**
 * The rollout layer only needs to turn text into ids and back. The model issue supplies the
 * real tokenizer; tests may use any implementation of this interface.
 */
export interface Tokenizer {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /** Id the sampler stops at; it is part of the generated tokens of each turn. */
  readonly endOfTurnId: number;
  readonly padId: number;
  readonly vocabSize: number;
  /** A pretrained model's chat format; prompts then use its role markers (chat-markers.ts). */
  readonly chat?: ChatRenderer;
}
