/**
 * What the decoding sessions on the device (hf/decode-session.ts, transformer-decode-session.ts)
 * share: the rollout's reply caches [2 x rows, kv heads, columns, head dim] (keys, then
 * values), the count of tokens fed, and the sampling and queue calls of the kernels.
 */
import * as tf from '@tensorflow/tfjs';
import type { DecodingKernels, RecordedDecodingStep } from './fused-kernels';
import type { DecodingSpec, KVCache } from './language-model';

export abstract class DeviceDecodingSession {
  protected fed = 0;
  /** The rollout's first step, recorded for the later ones where the kernels can (webgpu/step-recorder.ts). */
  private recorded: RecordedDecodingStep | null = null;
  /** `fed` when the step was recorded; -1 before the first step. */
  private recordedAt = -1;
  /** The sampling of the recorded step's logits, recorded at its first call, and its settings. */
  private recordedSample: { recording: RecordedDecodingStep | null; settings: string } | null = null;

  constructor(
    protected readonly kernels: DecodingKernels,
    protected readonly batch: number,
    protected readonly spec: DecodingSpec,
  ) {}

  /** Each layer's reply cache, in layer order. */
  protected abstract replyCaches(): tf.Tensor[];

  /** Records one decoding step's dispatches (see step()). */
  protected abstract record(ids: tf.Tensor2D, positions: tf.Tensor1D): tf.Tensor2D;

  /** Feeds each row the id in column 0 of ids; the logits of the next token [batch, vocab]. */
  step(ids: tf.Tensor2D, positions: tf.Tensor1D): tf.Tensor2D {
    this.checkRoom();
    if (this.recorded) {
      const logits = this.recorded.replay([ids, positions], this.fed - this.recordedAt);
      if (logits) {
        this.fed++;
        return logits as tf.Tensor2D;
      }
    }
    const { captureCall } = this.kernels;
    if (this.recordedAt < 0 && captureCall) {
      this.recordedAt = this.fed;
      const { output, recorded } = this.kernels.recordStep(() => captureCall(([i, p]) => this.record(i as tf.Tensor2D, p as tf.Tensor1D), [ids, positions]));
      this.recorded = recorded;
      return output as tf.Tensor2D;
    }
    return this.kernels.recordStep(() => this.record(ids, positions));
  }

  /** Frees the session's tensors (the reply caches, its tables). */
  protected abstract release(): void;

  dispose(): void {
    this.recordedSample?.recording?.dispose();
    this.recordedSample = null;
    this.recorded?.dispose();
    this.recorded = null;
    this.release();
  }

  protected checkRoom(): void {
    if (this.fed >= this.spec.columns) throw new Error(`The decoding session has room for ${this.spec.columns} fed tokens`);
  }

  replyCache(): KVCache {
    const { batch, fed } = this;
    return this.replyCaches().map((cache) =>
      tf.tidy(() => {
        const [, heads, , dim] = cache.shape;
        return {
          k: cache.slice([0, 0, 0, 0], [batch, heads, fed, dim]) as tf.Tensor4D,
          v: cache.slice([batch, 0, 0, 0], [batch, heads, fed, dim]) as tf.Tensor4D,
        };
      }),
    );
  }

  sample(logits: tf.Tensor2D, draws: tf.Tensor1D, temperature: number, greedy: boolean, topK = 0, topP = 1): tf.Tensor2D {
    const sample = (d: tf.Tensor) => this.kernels.sample(logits, d as tf.Tensor1D, temperature, greedy, topK, topP);
    // Only the recorded step's logits (the same buffer every step) can be sampled by a recording.
    const { captureCall } = this.kernels;
    if (!this.recorded?.produced(logits) || !captureCall) return sample(draws);
    const settings = `${temperature} ${greedy} ${topK} ${topP}`;
    if (this.recordedSample?.settings === settings && this.recordedSample.recording) {
      const picked = this.recordedSample.recording.replay([draws], 0);
      if (picked) return picked as tf.Tensor2D;
    }
    if (this.recordedSample) return sample(draws);
    const { output, recorded } = captureCall(([d]) => sample(d), [draws]);
    this.recordedSample = { recording: recorded, settings };
    return output as tf.Tensor2D;
  }

  flush(): void {
    this.kernels.flush();
  }
}
