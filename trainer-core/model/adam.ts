/**
 * Adam / AdamW over a model's named variables, with its moments exposed by parameter name so a
 * checkpoint stores them as safetensors next to the weights and a resumed run continues exactly.
 * (tf.train.adam keys its moments by position and tfjs-internal variable names.)
 */
import * as tf from '@tensorflow/tfjs';
import { fusedKernels, type FusedAdam } from './fused-kernels';
import type { NamedArray } from './safetensors';

export interface AdamOptions {
  learningRate: number;
  beta1?: number;
  beta2?: number;
  epsilon?: number;
  /** Decoupled weight decay (AdamW); default 0. */
  weightDecay?: number;
}

export class Adam {
  private readonly m = new Map<string, tf.Variable>();
  private readonly v = new Map<string, tf.Variable>();
  /**
   * The backend's fused step (WebGPU), taken when the optimizer is made: its moments are one flat
   * tensor [m of every parameter | v of every parameter] instead of m and v per parameter.
   */
  private readonly fused: FusedAdam | undefined;
  private readonly moments: tf.Variable | undefined;
  private steps = 0;
  readonly beta1: number;
  readonly beta2: number;
  readonly epsilon: number;
  readonly weightDecay: number;
  learningRate: number;

  constructor(
    private readonly params: ReadonlyArray<readonly [string, tf.Variable]>,
    options: AdamOptions,
  ) {
    this.learningRate = options.learningRate;
    this.beta1 = options.beta1 ?? 0.9;
    this.beta2 = options.beta2 ?? 0.999;
    this.epsilon = options.epsilon ?? 1e-8;
    this.weightDecay = options.weightDecay ?? 0;
    const fused = fusedKernels().adam;
    this.moments = fused?.allocateMoments(params.map(([, variable]) => variable.size)) ?? undefined;
    this.fused = this.moments ? fused : undefined;
    if (this.moments) return;
    for (const [name, variable] of params) {
      this.m.set(name, tf.tidy(() => tf.variable(tf.zerosLike(variable), false)));
      this.v.set(name, tf.tidy(() => tf.variable(tf.zerosLike(variable), false)));
    }
  }

  get stepCount(): number {
    return this.steps;
  }

  /**
   * One update. `grads` maps parameter names to gradients; a missing name is left unchanged
   * (e.g. frozen parts). Gradients are not disposed. `gradScale` multiplies every gradient first
   * (global-norm clipping), so the scaled copies need not exist.
   */
  apply(grads: Record<string, tf.Tensor>, gradScale = 1): void {
    this.steps += 1;
    const t = this.steps;
    const stepSize = (this.learningRate * Math.sqrt(1 - this.beta2 ** t)) / (1 - this.beta1 ** t);
    if (this.fused && this.moments) {
      const step = { beta1: this.beta1, beta2: this.beta2, epsilon: this.epsilon, stepSize, decay: this.learningRate * this.weightDecay, gradScale };
      this.fused.step(this.params.map(([, variable]) => variable), this.params.map(([name]) => grads[name] ?? null), this.moments, step);
      return;
    }
    tf.tidy(() => {
      for (const [name, variable] of this.params) {
        if (!grads[name]) continue;
        const g = gradScale === 1 ? grads[name] : tf.mul(grads[name], gradScale);
        const m = this.m.get(name)!;
        const v = this.v.get(name)!;
        const newM = m.mul(this.beta1).add(g.mul(1 - this.beta1));
        const newV = v.mul(this.beta2).add(g.square().mul(1 - this.beta2));
        m.assign(newM);
        v.assign(newV);
        let update = newM.div(newV.sqrt().add(this.epsilon)).mul(stepSize);
        if (this.weightDecay > 0) update = update.add(variable.mul(this.learningRate * this.weightDecay));
        variable.assign(variable.sub(update));
      }
    });
  }

  /** Moments as named arrays ("<param>.m", "<param>.v") plus the step count. */
  async state(): Promise<{ tensors: Record<string, NamedArray>; step: number }> {
    const tensors: Record<string, NamedArray> = {};
    if (this.moments) {
      const flat = (await this.moments.data()) as Float32Array;
      const total = flat.length / 2;
      let offset = 0;
      for (const [name, variable] of this.params) {
        tensors[`${name}.m`] = { shape: [...variable.shape], data: flat.slice(offset, offset + variable.size) };
        tensors[`${name}.v`] = { shape: [...variable.shape], data: flat.slice(total + offset, total + offset + variable.size) };
        offset += variable.size;
      }
      return { tensors, step: this.steps };
    }
    for (const [name] of this.params) {
      for (const [suffix, map] of [['m', this.m], ['v', this.v]] as const) {
        const variable = map.get(name)!;
        tensors[`${name}.${suffix}`] = { shape: [...variable.shape], data: (await variable.data()) as Float32Array };
      }
    }
    return { tensors, step: this.steps };
  }

  loadState(tensors: Record<string, NamedArray>, step: number): void {
    const total = this.params.reduce((sum, [, variable]) => sum + variable.size, 0);
    const flat = this.moments ? new Float32Array(2 * total) : null;
    let offset = 0;
    for (const [name, variable] of this.params) {
      for (const [suffix, map] of [['m', this.m], ['v', this.v]] as const) {
        const entry = tensors[`${name}.${suffix}`];
        if (!entry) throw new Error(`Optimizer state lacks "${name}.${suffix}"`);
        if (entry.shape.join(',') !== variable.shape.join(',')) {
          throw new Error(`Optimizer state "${name}.${suffix}" has shape [${entry.shape}], the parameter has [${variable.shape}]`);
        }
        if (flat) flat.set(entry.data, (suffix === 'v' ? total : 0) + offset);
        else tf.tidy(() => map.get(name)!.assign(tf.tensor(entry.data, entry.shape, 'float32')));
      }
      offset += variable.size;
    }
    if (flat && this.moments) tf.tidy(() => this.moments!.assign(tf.tensor1d(flat)));
    this.steps = step;
  }

  dispose(): void {
    this.moments?.dispose();
    for (const variable of [...this.m.values(), ...this.v.values()]) variable.dispose();
    this.m.clear();
    this.v.clear();
  }
}
