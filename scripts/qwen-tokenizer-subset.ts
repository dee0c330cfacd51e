/**
 * The real Qwen tokenizer cut to a smaller vocabulary, for tiny test models. Over Qwen's 151,936
 * ids a tiny model spends nearly all its time in the LM head and the sampler, so a test that
 * checks anything else (LoRA, the trainer's scopes, a command) pays for a head it does not check.
 *
 * Qwen's byte-level BPE numbers its tokens in merge order (the 256 bytes, then each merge's
 * result), so its first ids with the merges among them are a complete BPE of their own: any text
 * still tokenizes, into more and shorter tokens. The 26 special tokens (`<|im_end|>`, `<think>`,
 * ...) follow them, renumbered, and the chat template is unchanged.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

type Json = Record<string, unknown>;

interface AddedToken extends Json {
  id: number;
  content: string;
}

export interface TokenizerFiles {
  tokenizer: Json;
  tokenizerConfig: Json;
  /** The ids of `<|endoftext|>` and `<|im_end|>` in this vocabulary. */
  endOfText: number;
  imEnd: number;
}

/** Qwen's tokenizer files with `vocabSize` ids in all (Qwen's own when it is 151,669 or more). */
export async function qwenTokenizerFiles(tokenizerDir: string, vocabSize: number): Promise<TokenizerFiles> {
  const tokenizer = JSON.parse(await readFile(join(tokenizerDir, 'tokenizer.json'), 'utf8')) as Json & { added_tokens: AddedToken[]; model: { vocab: Record<string, number>; merges: Array<[string, string]> } };
  const tokenizerConfig = JSON.parse(await readFile(join(tokenizerDir, 'tokenizer_config.json'), 'utf8')) as Json & { added_tokens_decoder: Record<string, Json> };
  const added = tokenizer.added_tokens;
  const ordinary = vocabSize - added.length;
  if (ordinary < 256) throw new Error(`a vocabulary of ${vocabSize} ids leaves no room for the 256 byte tokens and ${added.length} special ones`);
  const firstAdded = Math.min(...added.map((t) => t.id));
  if (ordinary < firstAdded) {
    const vocab = Object.fromEntries(Object.entries(tokenizer.model.vocab).filter(([, id]) => id < ordinary));
    const merges = tokenizer.model.merges.filter(([a, b]) => vocab[a] !== undefined && vocab[b] !== undefined && vocab[a + b] !== undefined);
    const renumber = (id: number) => ordinary + id - firstAdded;
    tokenizer.model = { ...tokenizer.model, vocab, merges };
    tokenizer.added_tokens = added.map((t) => ({ ...t, id: renumber(t.id) }));
    tokenizerConfig.added_tokens_decoder = Object.fromEntries(Object.entries(tokenizerConfig.added_tokens_decoder).map(([id, token]) => [String(renumber(Number(id))), token]));
  }
  const idOf = (content: string) => {
    const token = tokenizer.added_tokens.find((t) => t.content === content);
    if (!token) throw new Error(`the Qwen tokenizer has no ${content}`);
    return token.id;
  };
  return { tokenizer, tokenizerConfig, endOfText: idOf('<|endoftext|>'), imEnd: idOf('<|im_end|>') };
}
