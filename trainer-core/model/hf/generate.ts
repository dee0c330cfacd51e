/**
 * One prompt through a pretrained model: what `turnlab generate` prints, and how a user checks
 * that a folder loaded right. The recorded logprobs are always at temperature 1 (of each output
 * token given every id before it), whatever temperature sampled them, so they can be compared
 * with any other implementation of the architecture.
 */
import * as tf from '@tensorflow/tfjs';
import { Rng } from '../../rng';
import { sampleTokens } from '../sampler';
import { scoreTokens } from '../scoring';
import type { Transformer } from '../transformer';
import { HfModelError } from './config';
import type { HfDecoder } from './decoder';
import type { HfModelFolder } from './load';

export interface GenerateOptions {
  prompt: string;
  /** Render the prompt as one user message with the model's chat template. */
  chat?: boolean;
  maxNewTokens: number;
  /** 0 or greedy: argmax. */
  temperature: number;
  greedy?: boolean;
  seed: number;
}

export interface GenerateResult {
  text: string;
  prompt_text: string;
  prompt_ids: number[];
  output_ids: number[];
  logprobs: number[];
  stopped: boolean;
}

/**
 * The sampler and scorer are typed on TurnLab's Transformer; they only read `config`
 * (vocabSize, contextLength, lmHead, valueHead) and call `forward`, which HfDecoder provides with
 * the same signature.
 */
export function asPolicy(model: Pick<HfDecoder, 'config' | 'forward'>): Transformer {
  return model as unknown as Transformer;
}

export function promptText(folder: HfModelFolder, prompt: string, chat: boolean): string {
  if (!chat) return prompt;
  if (!folder.template) throw new HfModelError(`${folder.dir}: tokenizer_config.json has no chat_template (a base model, not an instruct one), so --chat cannot render a prompt; leave out --chat`);
  return folder.template.render([{ role: 'user', content: prompt }], {
    addGenerationPrompt: true,
    bosToken: folder.tokenizer.bosToken,
    eosToken: folder.tokenizer.eosToken,
  });
}

export async function generate(folder: HfModelFolder, model: HfDecoder, options: GenerateOptions): Promise<GenerateResult> {
  const text = promptText(folder, options.prompt, options.chat ?? false);
  const promptIds = folder.tokenizer.encode(text);
  if (promptIds.length === 0) throw new HfModelError('The prompt encodes to no tokens; give some text with --prompt');
  const context = model.config.contextLength;
  if (promptIds.length >= context) {
    throw new HfModelError(`The prompt has ${promptIds.length} tokens; the model's context of ${context} leaves no room to generate: shorten --prompt`);
  }
  const greedy = options.greedy === true || options.temperature === 0;
  const policy = asPolicy(model);
  const sampled = await sampleTokens(policy, [promptIds], {
    maxNewTokens: options.maxNewTokens,
    temperature: greedy ? 1 : options.temperature,
    greedy,
    stopIds: folder.tokenizer.stopIds,
    padId: folder.tokenizer.padId,
    rng: new Rng(options.seed),
  });
  const outputIds = sampled.tokens[0];
  let logprobs = sampled.logprobs[0];
  if (!greedy && options.temperature !== 1 && outputIds.length > 0) {
    // The sampler records logprobs at the sampling temperature; report them at temperature 1.
    const scored = tf.tidy(() => scoreTokens(policy, [[...promptIds, ...outputIds]], { temperature: 1 }).logprobs!);
    logprobs = Array.from((await scored.data()) as Float32Array).slice(promptIds.length);
    scored.dispose();
  }
  return {
    text: folder.tokenizer.decode(outputIds, true),
    prompt_text: text,
    prompt_ids: promptIds,
    output_ids: outputIds,
    logprobs,
    stopped: sampled.stopped[0],
  };
}
