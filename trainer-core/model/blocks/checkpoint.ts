/**
 * Gradient checkpointing for one block: the forward pass keeps only the block's inputs, and the
 * backward pass runs the block again under its own tape to get the gradients. Activation memory
 * is then one block's, not every block's, for about one more forward pass.
 */
import * as tf from '@tensorflow/tfjs';

/**
 * `block(x, extra, context)` recomputed in the backward pass. Gradients flow to x, to `extra`
 * (tensors such as a KV cache the block reads) and to `params` (the trainable variables the
 * block captures); `context` tensors (masks, rotation tables) are saved and get none.
 */
export function checkpointed(
  block: (x: tf.Tensor2D, extra: tf.Tensor[], context: tf.Tensor[]) => tf.Tensor2D,
  x: tf.Tensor2D,
  extra: tf.Tensor[],
  context: tf.Tensor[],
  params: tf.Variable[],
): tf.Tensor2D {
  const nExtra = extra.length;
  const op = tf.customGrad((...args) => {
    const save = args[args.length - 1] as tf.GradSaveFunc;
    const inputs = args.slice(0, 1 + nExtra) as tf.Tensor[];
    // Saved, not captured: the forward scope disposes everything it did not save.
    save([...inputs, ...context]);
    return {
      value: block(inputs[0] as tf.Tensor2D, inputs.slice(1), context),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        // tfjs runs the outer backward pass with no tape recording, so the inner tf.grads starts
        // a fresh tape, and at its end frees that tape's saved tensors and clears the engine's
        // tape slot, where the outer pass still has its own to free: keep the outer one aside.
        const state = (tf.engine() as unknown as { state: { activeTape: unknown } }).state;
        const outerTape = state.activeTape;
        try {
          return tf.tidy(() => {
            const ins = saved.slice(0, 1 + nExtra);
            const ctx = saved.slice(1 + nExtra);
            // The variables are both captured by the block and listed here: the inner tape finds them by id.
            return tf.grads((...xs: tf.Tensor[]) => block(xs[0] as tf.Tensor2D, xs.slice(1, 1 + nExtra), ctx))([...ins, ...params], dy);
          });
        } finally {
          state.activeTape = outerTape;
        }
      },
    };
  });
  return op(x, ...extra, ...params) as tf.Tensor2D;
}
