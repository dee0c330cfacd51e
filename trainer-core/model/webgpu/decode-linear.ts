/**
 * A decoding step's linear layers, each in ONE dispatch with its LoRA term: the down-projection
 * x A is formed inside the kernel (each workgroup computes it for its own block of rows into
 * workgroup memory, a few percent more arithmetic than x W for ranks up to 16), so no separate
 * matmul dispatch is needed. Three forms:
 *
 * - single: y = x W (+ bias) (+ s (x A) B) (then ReLU) (+ residual), the o/down projections
 *   with the residual add of the block folded in, and the LM head (W may be given [out, in]);
 * - qkv:    [q | k | v] = x [Wq | Wk | Wv] (+ bias) (+ s (x [Aq | Ak | Av]) [Bq | Bk | Bv]), the
 *           three projections of attention in one output (each segment uses its own rank columns);
 * - gated:  silu(x Wg + s (x Ag) Bg) * (x Wu + s (x Au) Bu), the MLP's gate and up projections
 *           and the SwiGLU gate.
 *
 * A workgroup covers a block of ROWS rows (each weight element is read once per block) and either
 * 64 adjacent columns, or, for layers narrower than the LM head, 8 columns whose inner dimension
 * its 64 threads split eight ways and sum in workgroup memory. Measured on an H200 (2026-11-28):
 * with 64 columns a workgroup, Qwen2.5-0.5B's down projection (896 columns, inner 4,864) ran as 14
 * workgroups whose threads each walked all 4,864 inputs one after another, and a decoding step
 * took about 156 ms for 1 row and for 64 alike. Inference only: training keeps tfjs's tiled matmuls.
 */
import type * as tf from '@tensorflow/tfjs';
import type { DecodeLinearForm, DecodeLinearInputs } from '../fused-kernels';
import { ROW_THREADS, groupProgram, registerProgramKernel, runKernel } from './program';
import { fusedRmsNorm } from './rms-norm';
import { layerKind } from './tile-config';
import { deviceLimits, foldsNorm, registerTiledDecodeLinearKernel, tiledDecodeLinearName, tiledLayerOf } from './tiled-decode-linear';

/**
 * Which kernel forms the products x W: `tiled` (tiled-decode-linear.ts, the default) or `split`
 * (this file's kernel, each thread walking a slice of the inputs for a few columns; kept to
 * compare on a GPU: TURNLAB_DECODE_LINEAR=split). Products precomputed by a matmul always take
 * this file's kernel, which then only adds the rest.
 */
const KERNEL = process.env.TURNLAB_DECODE_LINEAR === 'split' ? 'split' : 'tiled';

const DECODE_LINEAR = 'TurnLabDecodeLinear';
/** Rows per workgroup (each weight element is read once per such block of rows). */
const ROWS = 8;
/** Columns a workgroup covers when its threads split the inner dimension (SPLIT = ROW_THREADS / this). */
const SPLIT_COLUMNS = 8;
/** Layers with at most this many columns split their inner dimension (all but the LM head). */
const SPLIT_UP_TO_COLUMNS = 16384;
/** Past this many rows a tiled matmul would read the weights fewer times: the sampler then decodes through tfjs. */
export const MAX_DECODE_ROWS = 256;
/** Most LoRA columns (segments x rank) the workgroup memory holds per row. */
export const MAX_LORA_COLUMNS = 128;

function weightRead(form: DecodeLinearForm, transposed: boolean): string {
  if (transposed) return `fn weightAt(i : i32, col : i32) -> f32 { return W0[col * uniforms.w0Shape.y + i]; }`;
  if (form !== 'qkv') return `fn weightAt(i : i32, col : i32) -> f32 { return W0[i * uniforms.w0Shape.y + col]; }`;
  return `fn weightAt(i : i32, col : i32) -> f32 {
        let c0 = uniforms.w0Shape.y;
        let c1 = uniforms.w1Shape.y;
        if (col < c0) { return W0[i * c0 + col]; }
        if (col < c0 + c1) { return W1[i * c1 + col - c0]; }
        return W2[i * uniforms.w2Shape.y + col - c0 - c1];
      }`;
}

/** Element (row, col) of the products x W already formed (precomputed: W0.. are [rows, columns]). */
function productRead(form: DecodeLinearForm): string {
  if (form !== 'qkv') return `fn productAt(row : i32, col : i32) -> f32 { return W0[row * uniforms.w0Shape.y + col]; }`;
  return `fn productAt(row : i32, col : i32) -> f32 {
        let c0 = uniforms.w0Shape.y;
        let c1 = uniforms.w1Shape.y;
        if (col < c0) { return W0[row * c0 + col]; }
        if (col < c0 + c1) { return W1[row * c1 + col - c0]; }
        return W2[row * uniforms.w2Shape.y + col - c0 - c1];
      }`;
}

export function registerDecodeLinearKernels(): void {
  registerTiledDecodeLinearKernel();
  registerProgramKernel(DECODE_LINEAR, (inputs, { form: formCode, scale, relu, transposed, precomputed }) => {
    const form = (['single', 'qkv', 'gated'] as const)[formCode];
    const { x, w0, w1, w2, bias, a, b, residual } = inputs;
    const [rows] = x.shape;
    const cols = form === 'qkv' ? w0.shape[1] + w1.shape[1] + w2.shape[1] : transposed ? w0.shape[0] : w0.shape[1];
    // Columns per workgroup, and the slices of the inner dimension its threads share.
    const width = cols <= SPLIT_UP_TO_COLUMNS && !precomputed ? SPLIT_COLUMNS : ROW_THREADS;
    const split = ROW_THREADS / width;
    const colBlocks = Math.ceil(cols / width);
    const groups = colBlocks * Math.ceil(rows / ROWS);
    // Precomputed products read no x unless the LoRA term needs it (an unread input must not be bound).
    const withX = !precomputed || a !== undefined;
    const names = [...(withX ? ['X'] : []), 'W0', ...(form === 'single' ? [] : ['W1']), ...(form === 'qkv' ? ['W2'] : []), ...(bias ? ['Bias'] : []), ...(a ? ['A', 'B'] : []), ...(residual ? ['Residual'] : [])];
    const lora = a !== undefined;
    // The up projection's LoRA columns follow the gate's; its B columns follow the gate's too.
    const epilogue = (acc: string, column: string, segment: string, bColumn: string) => `
            var ${acc}y = ${acc}[r];
            ${bias ? `${acc}y = ${acc}y + Bias[${column}];` : ''}
            ${
              lora
                ? `var ${acc}low = 0.0;
            for (var j = 0; j < rank; j = j + 1) { ${acc}low = ${acc}low + xa[r * loraCols + ${segment} * rank + j] * B[j * uniforms.bShape.y + ${bColumn}]; }
            ${acc}y = ${acc}y + ${acc}low * uniforms.scale;`
                : ''
            }`;
    const program = groupProgram(
      `decode_linear_${form}_${bias ? 'b' : ''}${lora ? 'l' : ''}${residual ? 'r' : ''}${relu ? 'u' : ''}${transposed ? 't' : ''}${precomputed ? 'p' : ''}_${width}`,
      names,
      [rows, cols],
      groups,
      `var<workgroup> xa : array<f32, ${ROWS * MAX_LORA_COLUMNS}>;
      var<workgroup> loraPartial : array<f32, ${ROW_THREADS}>;
      ${split > 1 ? `var<workgroup> partial : array<f32, ${ROWS * ROW_THREADS}>;` : ''}
      ${split > 1 && form === 'gated' ? `var<workgroup> upPartial : array<f32, ${ROWS * ROW_THREADS}>;` : ''}
      ${precomputed ? productRead(form) : weightRead(form, transposed === 1)}`,
      `
        ${withX ? 'let inner = uniforms.xShape.y;' : ''}
        let rows = uniforms.outShape.x;
        let cols = uniforms.outShape.y;
        let colBlock = group % uniforms.colBlocks;
        let first = (group / uniforms.colBlocks) * ${ROWS};
        let lane = tid % ${width};
        let slice = tid / ${width};
        let col = colBlock * ${width} + lane;
        let count = min(${ROWS}, rows - first);
        ${
          lora
            ? `let loraCols = uniforms.aShape.y;
        let rank = uniforms.bShape.x;
        // x A of this block's real rows: where they are fewer than the threads (a few rows, a
        // small rank), the threads split the inner dimension too and sum the slices in a fixed
        // order, so no thread walks all of a long inner dimension (down: 4,864) alone.
        let entries = max(count, 0) * loraCols;
        let few = entries > 0 && entries <= ${ROW_THREADS};
        if (few) {
          let slices = ${ROW_THREADS} / entries;
          let e = tid % entries;
          let part = tid / entries;
          let r = e / loraCols;
          let j = e - r * loraCols;
          var s = 0.0;
          if (part < slices) {
            for (var i = part; i < inner; i = i + slices) { s = s + X[(first + r) * inner + i] * A[i * loraCols + j]; }
          }
          loraPartial[tid] = s;
        } else {
          for (var e = tid; e < ${ROWS} * loraCols; e = e + ${ROW_THREADS}) {
            let r = e / loraCols;
            let j = e - r * loraCols;
            var s = 0.0;
            if (r < count) {
              for (var i = 0; i < inner; i = i + 1) { s = s + X[(first + r) * inner + i] * A[i * loraCols + j]; }
            }
            xa[e] = s;
          }
        }
        workgroupBarrier();
        if (few && tid < entries) {
          var t = 0.0;
          for (var k = 0; k < ${ROW_THREADS} / entries; k = k + 1) { t = t + loraPartial[k * entries + tid]; }
          xa[tid] = t;
        }
        workgroupBarrier();`
            : ''
        }
        var acc : array<f32, ${ROWS}>;
        ${form === 'gated' ? `var upAcc : array<f32, ${ROWS}>;` : ''}
        ${
          precomputed
            ? `if (col < cols && count > 0) {
          for (var r = 0; r < ${ROWS}; r = r + 1) {
            if (r < count) {
              acc[r] = productAt(first + r, col);
              ${form === 'gated' ? 'upAcc[r] = W1[(first + r) * cols + col];' : ''}
            }
          }
        }`
            : ''
        }
        ${
          precomputed
            ? ''
            : `        if (col < cols && count > 0) {
          for (var i = slice; i < inner; i = i + ${split}) {
            let w = weightAt(i, col);
            ${form === 'gated' ? 'let u = W1[i * cols + col];' : ''}
            // A constant trip count, so the compiler can unroll it and keep acc in registers.
            for (var r = 0; r < ${ROWS}; r = r + 1) {
              if (r < count) {
                let xv = X[(first + r) * inner + i];
                acc[r] = acc[r] + xv * w;
                ${form === 'gated' ? 'upAcc[r] = upAcc[r] + xv * u;' : ''}
              }
            }
          }
        }`
        }
        ${
          split > 1
            ? `// Each slice's sums into workgroup memory; the first slice adds the others' in a fixed order.
        for (var r = 0; r < ${ROWS}; r = r + 1) {
          partial[r * ${ROW_THREADS} + tid] = acc[r];
          ${form === 'gated' ? `upPartial[r * ${ROW_THREADS} + tid] = upAcc[r];` : ''}
        }
        workgroupBarrier();
        if (slice == 0) {
          for (var r = 0; r < ${ROWS}; r = r + 1) {
            for (var k = 1; k < ${split}; k = k + 1) {
              acc[r] = acc[r] + partial[r * ${ROW_THREADS} + k * ${width} + lane];
              ${form === 'gated' ? `upAcc[r] = upAcc[r] + upPartial[r * ${ROW_THREADS} + k * ${width} + lane];` : ''}
            }
          }
        }`
            : ''
        }
        if (slice == 0 && col < cols && count > 0) {
          ${form === 'qkv' ? 'let segment = select(select(2, 1, col < uniforms.w0Shape.y + uniforms.w1Shape.y), 0, col < uniforms.w0Shape.y);' : ''}
          for (var r = 0; r < count; r = r + 1) {
            ${epilogue('acc', 'col', form === 'qkv' ? 'segment' : '0', 'col')}
            ${form === 'gated' ? `${epilogue('upAcc', 'col', '1', 'cols + col')}
            let g = accy;
            let sig = 1.0 / (1.0 + exp(-1.0 * g));
            result[(first + r) * cols + col] = g * sig * upAccy;` : `result[(first + r) * cols + col] = ${relu ? 'max(accy, 0.0)' : 'accy'}${residual ? ' + Residual[(first + r) * cols + col]' : ''};`}
          }
        }`,
      'scale : f32, colBlocks : i32,',
    );
    return {
      program,
      inputs: [...(withX ? [x] : []), w0, ...(w1 ? [w1] : []), ...(w2 ? [w2] : []), ...(bias ? [bias] : []), ...(a ? [a, b] : []), ...(residual ? [residual] : [])],
      uniforms: [
        { type: 'float32', data: [scale ?? 1] },
        { type: 'int32', data: [colBlocks] },
      ],
    };
  });
}

/**
 * The decoding linear layer in one dispatch; null where it does not apply (too many rows, or more
 * LoRA columns than the workgroup memory holds).
 */
export function fusedDecodeLinear(form: DecodeLinearForm, inputs: DecodeLinearInputs): tf.Tensor2D | null {
  const { weights, bias, lora, residual, norm } = inputs;
  let { x } = inputs;
  if (x.shape[0] > MAX_DECODE_ROWS) return null;
  if (lora && lora.a.shape[1] > MAX_LORA_COLUMNS) return null;
  const tiled = KERNEL === 'tiled' && !inputs.precomputed;
  const layer = tiled ? tiledLayerOf(form, inputs) : undefined;
  // The norm folded into the tiled kernel where its tiling stages x; else its own dispatch first.
  const foldNorm = norm !== undefined && layer !== undefined && foldsNorm(layer, x.shape[1], deviceLimits());
  if (norm && !foldNorm) x = fusedRmsNorm(x, norm.weight, norm.eps) as tf.Tensor2D;
  const named: Record<string, tf.Tensor> = { x, w0: weights[0] };
  if (foldNorm && !norm.afterBias) named.normWeight = norm.weight;
  if (weights[1]) named.w1 = weights[1];
  if (weights[2]) named.w2 = weights[2];
  if (bias) named.bias = bias;
  if (lora) {
    named.a = lora.a;
    named.b = lora.b;
  }
  if (residual) named.residual = residual;
  const flags = { relu: inputs.relu ? 1 : 0, transposed: inputs.transposed ? 1 : 0, precomputed: inputs.precomputed ? 1 : 0, eps: foldNorm ? norm.eps : 0, normInBias: foldNorm && norm.afterBias ? 1 : 0 };
  const name = layer ? tiledDecodeLinearName(layerKind({ form, inner: x.shape[1], cols: layer.cols })) : DECODE_LINEAR;
  return runKernel(name, named, { form: ['single', 'qkv', 'gated'].indexOf(form), scale: lora?.scale ?? 1, ...flags }) as tf.Tensor2D;
}
