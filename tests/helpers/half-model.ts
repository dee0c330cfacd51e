/**
 * What the 16-bit-weight tests compute of a tiny pretrained decoder with LoRA, on whichever
 * backend is active: scored logprobs and entropies, and the adapters' gradients of a weighted
 * sum of the logprobs (recomputing each layer), with the same random adapters in every model.
 */
import * as tf from '@tensorflow/tfjs';
import type { HfDecoder } from '../../trainer-core/model/hf/decoder';
import { asPolicy } from '../../trainer-core/model/hf/generate';
import type { LoraSettings } from '../../trainer-core/model/hf/lora';
import { scoreTokens } from '../../trainer-core/model/scoring';
import { Rng } from '../../trainer-core/rng';

/** A folder, a token row and adapters: what a child process on another backend needs (JSON). */
export interface HalfModelCase {
  dir: string;
  ids: number[];
  lora: LoraSettings;
  adapterSeed: number;
}

export interface HalfModelScores {
  logprobs: number[];
  entropy: number[];
  gradients: Record<string, number[]>;
}

/** The same random adapters (B too, so they change the output) in every model. */
export async function setAdapters(models: HfDecoder[], seed: number): Promise<void> {
  const rng = new Rng(seed);
  const arrays = await models[0].trainableArrays();
  for (const entry of Object.values(arrays)) for (let i = 0; i < entry.data.length; i++) entry.data[i] = rng.normal() * 0.2;
  for (const model of models) model.loadTrainable(arrays, 'test');
}

/** The second half of the row is scored, as a reply is. */
const scoredHalf = (ids: number[]) => [ids.map((_, t) => (t >= ids.length / 2 ? 1 : 0))];

/** Read asynchronously: WebGPU in Node has no synchronous read. */
export async function halfModelScores(model: HfDecoder, ids: number[]): Promise<HalfModelScores> {
  const out = tf.tidy(() => {
    const scores = scoreTokens(asPolicy(model), [ids], { logprobs: true, entropy: true, scored: scoredHalf(ids) });
    return [scores.logprobs!, scores.entropy!];
  });
  const [logprobs, entropy] = [Array.from(await out[0].data()), Array.from(await out[1].data())];
  tf.dispose(out);
  const weights = tf.tensor2d([ids.map((_, t) => Math.sin(t))]);
  const loss = () => scoreTokens(asPolicy(model), [ids], { logprobs: true, scored: scoredHalf(ids), checkpointLayers: true }).logprobs!.mul(weights).sum() as tf.Scalar;
  const { value, grads } = tf.variableGrads(loss, model.variables());
  const gradients: Record<string, number[]> = {};
  for (const [name, g] of Object.entries(model.nameGradients(grads))) gradients[name] = Array.from(await g.data());
  tf.dispose([value, weights, ...Object.values(grads)]);
  return { logprobs, entropy, gradients };
}
