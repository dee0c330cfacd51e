import type { RunConfig } from '../config/schema';
import { modelRoles } from './models';
import { gradientCheckpointing } from './update-settings';

/** The wasm backend's heap: 32-bit, so 4 GB at most. */
const WASM_HEAP_BYTES = 4 * 2 ** 30;

/** The most rows one gradient pass takes: the actor's micro-batch, or the critic's where it trains. */
const widestMicroBatch = (cfg: RunConfig) =>
  Math.max(cfg.actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu, modelRoles(cfg).critic ? cfg.critic.ppo_micro_batch_size_per_gpu : 0);

/**
 * Attention's share of a micro-batch's backward pass on TurnLab's own model, at the full context:
 * the scores, their softmax and its gradient (three float32 [rows, heads, context, context]
 * tensors) for every layer, or one layer's when each layer is recomputed. Measured on this
 * machine: the defaults' 3.0 GB ran the heap out at 4 rows of 2,033 tokens, sokoban-hard's
 * 1.7 GB trains.
 */
export function attentionBackwardBytes(cfg: RunConfig): number {
  const rows = widestMicroBatch(cfg);
  const layers = gradientCheckpointing(cfg) ? 1 : cfg.model.n_layer;
  return rows * layers * cfg.model.n_head * cfg.model.context_length ** 2 * 4 * 3;
}

/**
 * A warning for a run on the wasm backend whose micro-batch, once its episodes fill the context,
 * needs half the heap or more for attention alone: it fails minutes in (after validation and a
 * rollout), so the run says so as it starts. Null for a pretrained model (its own checks) and
 * a micro-batch that fits.
 */
export function wasmMemoryWarning(cfg: RunConfig): string | null {
  if (cfg.actor_rollout_ref.model.path !== null) return null;
  const bytes = attentionBackwardBytes(cfg);
  if (bytes < WASM_HEAP_BYTES / 2) return null;
  const rows = widestMicroBatch(cfg);
  return (
    `warning: on the wasm backend (a 4 GB heap) a micro-batch of ${rows} rows at the full context of ${cfg.model.context_length} tokens needs about ` +
    `${(bytes / 2 ** 30).toFixed(1)} GB for attention's backward pass alone, and will likely run out of memory once episodes grow that long: ` +
    'lower micro_batch_size_per_gpu or model.context_length (or agent_proxy.max_turn, actor_rollout_ref.rollout.response_length), ' +
    'set actor_rollout_ref.model.enable_gradient_checkpointing=true, or use a native backend (turnlab backends)'
  );
}
