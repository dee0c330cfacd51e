/**
 * A model folder's own tokenizer (`tokenizer.json` + `tokenizer_config.json`) through
 * @huggingface/tokenizers, behind the rollout layer's Tokenizer interface. Special tokens in
 * the text (`<|im_start|>`) encode to their single ids, as the chat template expects.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Tokenizer as HfTokenizerImpl } from '@huggingface/tokenizers';
import type { Tokenizer } from '../../rollout/tokenizer';
import type { ChatRenderer } from '../../rollout/chat-markers';
import { ChatTemplate } from './chat-template';
import { HfModelError } from './config';

type Json = Record<string, unknown>;

/** A special token in tokenizer_config.json is a string or an AddedToken object. */
function tokenText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as Json).content === 'string') return (value as Json).content as string;
  return null;
}

export interface HfTokenizerFiles {
  tokenizerJson: Json;
  tokenizerConfig: Json;
  /** generation_config.json, when the folder has one (its eos_token_id may list several ids). */
  generationConfig?: Json | null;
}

export class HfTokenizer implements Tokenizer {
  readonly endOfTurnId: number;
  readonly padId: number;
  readonly vocabSize: number;
  /** Every id that ends a reply: the end-of-turn id and generation_config's eos ids. */
  readonly stopIds: number[];
  readonly chatTemplate: string | null;
  readonly bosToken: string | null;
  readonly eosToken: string | null;
  private readonly impl: HfTokenizerImpl;
  private renderer: ChatTemplate | undefined;

  constructor(files: HfTokenizerFiles, modelVocabSize?: number) {
    const config = files.tokenizerConfig;
    this.impl = new HfTokenizerImpl(files.tokenizerJson, config);
    const idOf = (text: string | null) => (text === null ? undefined : this.impl.token_to_id(text));
    this.eosToken = tokenText(config.eos_token);
    this.bosToken = tokenText(config.bos_token);
    const eos = idOf(this.eosToken);
    const generationEos = files.generationConfig?.eos_token_id;
    const generationIds = Array.isArray(generationEos) ? (generationEos as number[]) : Number.isInteger(generationEos) ? [generationEos as number] : [];
    const endOfTurn = eos ?? generationIds[0];
    if (endOfTurn === undefined) throw new HfModelError('tokenizer_config.json names no eos_token and generation_config.json no eos_token_id: the sampler needs an end-of-turn token');
    this.endOfTurnId = endOfTurn;
    this.stopIds = [...new Set([endOfTurn, ...generationIds])];
    this.padId = idOf(tokenText(config.pad_token)) ?? endOfTurn;
    const template = config.chat_template;
    this.chatTemplate = typeof template === 'string' ? template : Array.isArray(template) ? ((template as Json[]).find((t) => t.name === 'default')?.template as string | undefined) ?? null : null;
    let largest = 0;
    for (const id of Object.values(this.impl.get_vocab())) largest = Math.max(largest, id);
    for (const id of this.impl.get_added_tokens_decoder().keys()) largest = Math.max(largest, id);
    // The model's embedding is often padded past the tokenizer (Qwen: 151,936 rows, 151,669 ids);
    // ids past it would index rows the model does not have: a tokenizer of another model.
    if (modelVocabSize !== undefined && largest >= modelVocabSize) {
      throw new HfModelError(
        `tokenizer.json has ids up to ${largest}, but config.json's vocab_size is ${modelVocabSize}: the tokenizer belongs to another model; copy the model's own tokenizer.json and tokenizer_config.json into its folder`,
      );
    }
    this.vocabSize = Math.max(largest + 1, modelVocabSize ?? 0);
  }

  /** The model's chat template as the rollout layer renders it; undefined without a template. */
  get chat(): ChatRenderer | undefined {
    if (this.chatTemplate === null) return undefined;
    this.renderer ??= new ChatTemplate(this.chatTemplate);
    const template = this.renderer;
    const options = { bosToken: this.bosToken, eosToken: this.eosToken };
    return {
      render: (messages, addGenerationPrompt) => template.render(messages, { ...options, addGenerationPrompt }),
      endOfTurnText: this.decode([this.endOfTurnId]),
    };
  }

  static async load(dir: string, modelVocabSize?: number): Promise<HfTokenizer> {
    const read = async (name: string, required: boolean): Promise<Json | null> => {
      try {
        return JSON.parse(await readFile(join(dir, name), 'utf8')) as Json;
      } catch (error) {
        if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw new HfModelError(`${join(dir, name)}: ${(error as Error).message}`);
      }
    };
    const tokenizerJson = await read('tokenizer.json', true);
    const tokenizerConfig = (await read('tokenizer_config.json', false)) ?? {};
    const generationConfig = await read('generation_config.json', false);
    try {
      return new HfTokenizer({ tokenizerJson: tokenizerJson!, tokenizerConfig, generationConfig }, modelVocabSize);
    } catch (error) {
      if (error instanceof HfModelError) throw new HfModelError(`${dir}: ${error.message}`);
      // The tokenizers library's own words ("Tokenizer must contain a model property") name no file.
      throw new HfModelError(`${join(dir, 'tokenizer.json')} is not a Hugging Face tokenizers file (${(error as Error).message}); copy the model's own tokenizer.json from its Hub repository`);
    }
  }

  encode(text: string): number[] {
    // No BOS/EOS added here: the chat template writes every special token itself.
    return this.impl.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: readonly number[], skipSpecialTokens = false): string {
    // A reply that is only the end-of-turn token decodes to nothing; the library refuses [].
    if (ids.length === 0) return '';
    return this.impl.decode([...ids], { skip_special_tokens: skipSpecialTokens });
  }

  tokenToId(token: string): number | undefined {
    return this.impl.token_to_id(token);
  }
}
