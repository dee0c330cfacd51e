/**
 * Messages between the trainer and its worker threads (trainer.workers). Everything is plain
 * data: token ids, Float32Arrays and settings; a worker holds its own copy of each model and
 * receives new weights after every optimizer step.
 */
import type { BackendName } from '../backend';
import type { HfDecoderConfig } from '../model/hf/config';
import type { HfDecoderOptions } from '../model/hf/decoder';
import type { ResolvedTransformerConfig } from '../model/transformer';
import type { GenerateOptions, GeneratedResponse } from '../rollout/rollout-loop';
import type { LossSpec, MicroBatch } from '../model/micro-batch-loss';

export type ModelRole = 'policy' | 'critic' | 'reference';

export type NamedArrays = Record<string, { shape: number[]; data: Float32Array }>;

/**
 * How a worker builds one role's model: TurnLab's transformer from its weights; a pretrained
 * decoder from its model folder, which the worker reads itself (the base weights are not sent;
 * the trainer sends what trains once the models stand); or, for a LoRA run's reference, the
 * worker's own policy with its adapters off.
 */
export type WorkerModelSpec =
  | { kind: 'transformer'; config: ResolvedTransformerConfig; arrays: NamedArrays }
  | { kind: 'pretrained'; dir: string; config: HfDecoderConfig; options: HfDecoderOptions }
  | { kind: 'adapterless'; of: 'policy' };

export interface ScoreJob {
  rows: number[][];
  documents: number[][];
  /** Per row, 1 at the columns whose logprobs are read (the loss mask): see ScoreOptions.scored. */
  scored: Float32Array[];
}

export interface ScoreSettings {
  temperature?: number;
  logprobs: boolean;
  values?: boolean;
}

/** One chunk's scores, [rows, width] each. */
export interface ScoreResult {
  width: number;
  logprobs?: Float32Array;
  values?: Float32Array;
}

export interface GradientResult {
  grads: NamedArrays;
  scalars: Record<string, number>;
}

export type WorkerRequest =
  | { type: 'init'; backend: BackendName; models: Partial<Record<ModelRole, WorkerModelSpec>> }
  | { type: 'weights'; role: ModelRole; arrays: NamedArrays }
  | { type: 'rollout-begin'; seed: number; padId: number; prefixReuse: boolean }
  | { type: 'generate'; prompts: number[][]; options: GenerateOptions }
  | { type: 'forget'; rowKey: number }
  | { type: 'rollout-end' }
  | { type: 'gradients'; role: ModelRole; micros: MicroBatch[]; spec: LossSpec }
  | { type: 'score'; role: ModelRole; jobs: ScoreJob[]; settings: ScoreSettings };

export interface WorkerResults {
  init: null;
  weights: null;
  'rollout-begin': null;
  generate: GeneratedResponse[];
  forget: null;
  'rollout-end': null;
  gradients: GradientResult[];
  score: ScoreResult[];
}

/** A failure carries the error's name and message, so a user-facing error stays one (see main/cli/training-errors.ts). */
export type WorkerReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string; name: string; message: string };
