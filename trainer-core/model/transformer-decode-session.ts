/**
 * A rollout's decoding of TurnLab's own transformer (GPT-2 style: LayerNorm, packed q|k|v with
 * biases, ReLU MLP, learned or rotary positions) on the device, with the kernels of
 * hf/decode-session.ts: 8 dispatches per layer (LayerNorm; q|k|v; the KV-cache write;
 * attention; out + residual; LayerNorm; up + ReLU; down + residual) and 4 per step besides
 * (embedding with positions, final LayerNorm, LM head, sampling).
 */
import * as tf from '@tensorflow/tfjs';
import type { DecodingKernels } from './fused-kernels';
import { DeviceDecodingSession } from './device-decoding';
import type { DecodingSession, DecodingSpec } from './language-model';

export interface TransformerShape {
  dModel: number;
  nHeads: number;
  nLayers: number;
  layerNormEps: number;
  /** Rotary frequencies, or null for learned positions (`pos_emb`). */
  ropeFrequencies: Float32Array | null;
  /** Tied head: the [vocab, dModel] embedding read transposed. */
  tiedHead: boolean;
}

export function canDecodeTransformer(shape: TransformerShape, kernels: DecodingKernels, batch: number): boolean {
  const headDim = shape.dModel / shape.nHeads;
  return batch <= kernels.maxRows && headDim <= kernels.maxHeadDim && headDim % 2 === 0;
}

export class TransformerDecodeSession extends DeviceDecodingSession implements DecodingSession {
  private readonly caches: tf.Tensor[] = [];
  private readonly bias: tf.Tensor2D;
  /** Rotary frequencies; one unread value with learned positions (a binding must exist). */
  private readonly freq: tf.Tensor1D;

  constructor(
    private readonly shape: TransformerShape,
    kernels: DecodingKernels,
    private readonly parameter: (name: string) => tf.Tensor,
    batch: number,
    spec: DecodingSpec,
  ) {
    super(kernels, batch, spec);
    const promptColumns = spec.promptCache[0].k.shape[2];
    this.bias = tf.tensor2d(spec.bias, [batch, promptColumns + spec.columns]);
    this.freq = tf.tensor1d(shape.ropeFrequencies ?? new Float32Array(1));
    const headDim = shape.dModel / shape.nHeads;
    for (let i = 0; i < shape.nLayers; i++) this.caches.push(kernels.allocateReplyCache(batch, shape.nHeads, Math.max(1, spec.columns), headDim));
  }

  protected record(ids: tf.Tensor2D, positions: tf.Tensor1D): tf.Tensor2D {
    const { shape, kernels } = this;
    const p = (name: string) => this.parameter(name) as tf.Tensor2D;
    const rope = shape.ropeFrequencies !== null;
    const linear = (inputs: Parameters<DecodingKernels['linear']>[1]) => {
      const y = kernels.linear('single', inputs);
      if (!y) throw new Error(`The device decoding kernels refused a layer of ${inputs.x.shape[0]} rows`);
      return y;
    };
    let x = rope ? kernels.embedRows(p('tok_emb'), ids) : kernels.embedRows(p('tok_emb'), ids, p('pos_emb'), positions);
    for (let i = 0; i < shape.nLayers; i++) {
      const l = `layers.${i}.`;
      const h = kernels.layerNorm(x, p(`${l}ln1.gain`), p(`${l}ln1.bias`), shape.layerNormEps);
      const qkv = linear({ x: h, weights: [p(`${l}attn.qkv.weight`)], bias: p(`${l}attn.qkv.bias`) });
      kernels.writeReplyCache(this.caches[i], qkv, positions, this.freq, this.fed, shape.dModel, 0, rope);
      const attended = kernels.attend(qkv, positions, this.freq, this.caches[i], this.bias, this.spec.promptCache[i], shape.nHeads, this.fed + 1, 0, rope);
      x = linear({ x: attended, weights: [p(`${l}attn.out.weight`)], bias: p(`${l}attn.out.bias`), residual: x });
      const h2 = kernels.layerNorm(x, p(`${l}ln2.gain`), p(`${l}ln2.bias`), shape.layerNormEps);
      const up = linear({ x: h2, weights: [p(`${l}mlp.up.weight`)], bias: p(`${l}mlp.up.bias`), relu: true });
      x = linear({ x: up, weights: [p(`${l}mlp.down.weight`)], bias: p(`${l}mlp.down.bias`), residual: x });
    }
    this.fed++;
    const final = kernels.layerNorm(x, p('ln_f.gain'), p('ln_f.bias'), shape.layerNormEps);
    return shape.tiedHead ? linear({ x: final, weights: [p('tok_emb')], transposed: true }) : linear({ x: final, weights: [p('lm_head.weight')] });
  }

  protected replyCaches(): tf.Tensor[] {
    return this.caches;
  }

  protected release(): void {
    tf.dispose([...this.caches, this.bias, this.freq]);
  }
}
