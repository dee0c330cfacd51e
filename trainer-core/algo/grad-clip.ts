import * as tf from '@tensorflow/tfjs';

export type GradientSet = tf.Tensor[] | tf.NamedTensorMap;

function tensorsOf(grads: GradientSet): tf.Tensor[] {
  return Array.isArray(grads) ? grads : Object.values(grads);
}

/** sqrt of the sum of squares of every gradient entry, as a scalar tensor (null for none). */
function globalNormTensor(grads: GradientSet): tf.Scalar | null {
  const tensors = tensorsOf(grads);
  if (tensors.length === 0) return null;
  return tf.tidy(() => tf.sqrt(tf.addN(tensors.map((g) => tf.sum(tf.square(tf.cast(g, 'float32')))))) as tf.Scalar);
}

/** sqrt of the sum of squares of every gradient entry, as a number. */
export function globalNorm(grads: GradientSet): number {
  const norm = globalNormTensor(grads);
  if (!norm) return 0;
  const value = norm.dataSync()[0];
  norm.dispose();
  return value;
}

/**
 * globalNorm read back asynchronously: under Node the WebGPU backend has no synchronous read
 * (its readSync needs OffscreenCanvas), so the training path uses this one.
 */
export async function globalNormAsync(grads: GradientSet): Promise<number> {
  const norm = globalNormTensor(grads);
  if (!norm) return 0;
  const value = (await norm.data())[0];
  norm.dispose();
  return value;
}

export interface ClippedGradients<G extends GradientSet> {
  /** New tensors (the caller disposes them and the originals); scaled when the norm was too big. */
  grads: G;
  /** Global norm before clipping: the actor/grad_norm metric. */
  norm: number;
  /** False when the norm is NaN or infinite: skip this optimizer step (verl does). */
  finite: boolean;
}

/**
 * Scales all gradients by min(1, maxNorm / (norm + 1e-6)) as torch's clip_grad_norm_ does, so
 * their joint direction is kept. Non-finite gradients are returned unscaled and flagged.
 */
export function clipByGlobalNorm<G extends GradientSet>(grads: G, maxNorm: number): ClippedGradients<G> {
  checkMaxNorm(maxNorm);
  return scaleToNorm(grads, globalNorm(grads), maxNorm);
}

/** clipByGlobalNorm for backends without synchronous reads (WebGPU under Node). */
export async function clipByGlobalNormAsync<G extends GradientSet>(grads: G, maxNorm: number): Promise<ClippedGradients<G>> {
  checkMaxNorm(maxNorm);
  return scaleToNorm(grads, await globalNormAsync(grads), maxNorm);
}

function checkMaxNorm(maxNorm: number): void {
  if (!(maxNorm > 0)) throw new RangeError(`grad_clip must be > 0 (use Infinity to turn clipping off), got ${maxNorm}`);
}

/** The factor clipping multiplies every gradient by (torch's clip_grad_norm_), and whether the norm is finite. */
export function clipScale(norm: number, maxNorm: number): { norm: number; scale: number; finite: boolean } {
  checkMaxNorm(maxNorm);
  const finite = Number.isFinite(norm);
  return { norm, scale: finite ? Math.min(1, maxNorm / (norm + 1e-6)) : 1, finite };
}

function scaleToNorm<G extends GradientSet>(grads: G, norm: number, maxNorm: number): ClippedGradients<G> {
  const { scale, finite } = clipScale(norm, maxNorm);
  const rescale = (g: tf.Tensor): tf.Tensor => (scale === 1 ? g.clone() : tf.tidy(() => tf.mul(g, scale)));
  const clipped = Array.isArray(grads)
    ? grads.map(rescale)
    : Object.fromEntries(Object.entries(grads).map(([name, g]) => [name, rescale(g)]));
  return { grads: clipped as G, norm, finite };
}
