/** Registers TurnLab's fused WebGPU kernels with tfjs and with the blocks' fused-kernel registry. */
import * as tf from '@tensorflow/tfjs';
import { registerFusedKernels } from '../fused-kernels';
import { MAX_DECODE_ROWS, MAX_LORA_COLUMNS, fusedDecodeLinear, registerDecodeLinearKernels } from './decode-linear';
import { embedColumnsById, registerDecodeSamplingKernels, sampleRows } from './decode-sampling';
import { MAX_HEAD_DIM, allocateReplyCache, cachedDecodeAttention, registerKvCacheKernels, writeReplyCache } from './kv-cache';
import { flushQueue } from './program';
import { fusedDecodeAttention, registerDecodeAttentionKernels } from './decode-attention';
import { deviceChunkElements, headGradient, headStatistics, registerHeadScoreKernels } from './head-scores';
import { fusedLoraLinear, registerLoraLinearKernels } from './lora-linear';
import { fusedRmsNorm, registerRmsNormKernels } from './rms-norm';
import { fusedRotate, registerRotaryKernels } from './rotary';
import { fusedSwiglu, registerSwigluKernels } from './swiglu';

export function installFusedWebgpuKernels(): void {
  registerRmsNormKernels();
  registerRotaryKernels();
  registerDecodeAttentionKernels();
  registerSwigluKernels();
  registerLoraLinearKernels();
  registerDecodeLinearKernels();
  registerKvCacheKernels();
  registerDecodeSamplingKernels();
  registerHeadScoreKernels();
  const headScores = { statistics: headStatistics, gradient: headGradient, chunkElements: () => deviceChunkElements(tf.backend()) };
  const decoding = {
    maxRows: MAX_DECODE_ROWS,
    maxHeadDim: MAX_HEAD_DIM,
    maxLoraColumns: MAX_LORA_COLUMNS,
    linear: fusedDecodeLinear,
    allocateReplyCache,
    writeReplyCache,
    attend: cachedDecodeAttention,
    embed: embedColumnsById,
    sample: sampleRows,
    flush: flushQueue,
  };
  registerFusedKernels('webgpu', { decoding, headScores, rmsNorm: fusedRmsNorm, rotate: fusedRotate, decodeAttention: fusedDecodeAttention, swiglu: fusedSwiglu, linear: fusedLoraLinear });
}
