/**
 * What the trainer needs from a model it optimizes: a forward pass (LanguageModel) and its
 * trainable parameters by stable name, the names Adam keys its moments and checkpoints by.
 * TurnLab's own Transformer and a pretrained HfDecoder (whose trainable parameters are its LoRA
 * adapters, or every weight) both are one.
 */
import type * as tf from '@tensorflow/tfjs';
import type { LanguageModel } from './language-model';

export interface TrainableModel extends LanguageModel {
  /** Trainable parameters in a fixed order: the gradient's list. */
  variables(): tf.Variable[];
  namedVariables(): Array<[string, tf.Variable]>;
  /** Every parameter, frozen ones included. */
  parameterCount(): number;
  dispose(): void;
}

/** A model the trainer only reads (a reference policy); disposing a view frees nothing it shares. */
export interface FrozenModel extends LanguageModel {
  dispose(): void;
}
