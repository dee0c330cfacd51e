/** Registers TurnLab's fused WebGPU kernels with tfjs and with the blocks' fused-kernel registry. */
import * as tf from '@tensorflow/tfjs';
import { registerFusedKernels } from '../fused-kernels';
import { adamStep, allocateAdamMoments } from './adam-update';
import { registerSumOfSquaresKernel, sumOfSquares } from './sum-of-squares';
import { registerTrainingAttentionKernels, trainingAttention } from './training-attention';
import { MAX_DECODE_ROWS, MAX_LORA_COLUMNS, fusedDecodeLinear, registerDecodeLinearKernels } from './decode-linear';
import { embedColumnsById, embedRowsById, registerDecodeSamplingKernels, sampleRows } from './decode-sampling';
import { fusedLayerNorm, fusedLayerNormWithGrad, registerLayerNormKernels } from './layer-norm';
import { MAX_HEAD_DIM, allocateReplyCache, cachedDecodeAttention, registerKvCacheKernels, writeReplyCache } from './kv-cache';
import { flushQueue, recordStep } from './program';
import { captureCall } from './step-recorder';
import { fusedDecodeAttention, registerDecodeAttentionKernels } from './decode-attention';
import { registerHalfProductKernels } from './half-products';
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
  registerLayerNormKernels();
  registerHeadScoreKernels();
  registerSumOfSquaresKernel();
  registerTrainingAttentionKernels();
  // Not a fusion but the only products of 16-bit weights here: registered whatever TURNLAB_FUSED_KERNELS says.
  registerHalfProductKernels();
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
    embedRows: embedRowsById,
    layerNorm: fusedLayerNorm,
    sample: sampleRows,
    flush: flushQueue,
    recordStep,
    captureCall,
  };
  registerFusedKernels('webgpu', { adam: { allocateMoments: allocateAdamMoments, step: adamStep }, decoding, headScores, layerNorm: fusedLayerNormWithGrad, sumOfSquares, trainingAttention, transposedProducts: true, rmsNorm: fusedRmsNorm, rotate: fusedRotate, decodeAttention: fusedDecodeAttention, swiglu: fusedSwiglu, linear: fusedLoraLinear });
}
