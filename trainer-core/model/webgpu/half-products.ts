/**
 * The products with a frozen 16-bit weight on WebGPU (model/half-ops.ts calls them), its values
 * widened to float32 as each tile is read, float32 math throughout:
 *
 * - forward, Y [rows, out] = X [rows, in] W^T: a linear layer, or an LM head's logits;
 * - input gradient, Z [rows, in] = G [rows, out] W: the backward pass through the same layer
 *   (the weight is frozen: no gradient of its own);
 * - gather: the rows of an embedding table at token ids.
 *
 * On WebGPU a matrix is stored [in, out] (HalfMatrix's `inMajor`): consecutive outputs of one
 * input are adjacent, so threads that read adjacent output columns read adjacent words, in these
 * products and in a decoding kernel alike.
 *
 * Past SKINNY_LIMIT rows both products are one tiled program: a workgroup of 16 x 16 threads
 * owns a 64 x 64 tile of the output and walks the inner dimension 16 at a time, staging the
 * input's and the (widened) weight's slices in workgroup memory. Fewer rows take skinnyProgram.
 */
import * as tf from '@tensorflow/tfjs';
import type { WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';
import type { HalfMatrix } from '../half-matrix';
import { halfReaderWgsl, widenHalfWgsl } from './half-weights';
import { elementwiseProgram, registerProgramKernel, runKernel, type ProgramCall } from './program';

const PRODUCT = 'TurnLabHalfProduct';
const WIDEN = 'TurnLabHalfWiden';
const GATHER = 'TurnLabHalfGather';
const TILE_K = 16;
const SIDE = 16;
/** Rows each thread of the few-rows products serves. */
const SKINNY_ROWS = 8;
/** At most this many rows take the few-rows products (a decoding step of a small batch). */
const SKINNY_LIMIT = 32;
/** The inner dimension's piece per thread of the few-rows input gradient. */
const SEGMENT = 256;

type Direction = 'forward' | 'gradient';

function productProgram(direction: Direction, format: 'BF16' | 'F16', rowsPerThread: number, colsPerThread: number, outputShape: [number, number]): WebGPUProgram {
  const tileRows = SIDE * rowsPerThread;
  const tileCols = SIDE * colsPerThread;
  // The weight's element for inner index k and output column c. Forward: W stored [in, out] is
  // [k][c]; gradient: the output columns are the inputs, [c][k]. Consecutive threads take
  // consecutive elements of the weight either way.
  const weightLoad =
    direction === 'forward'
      ? `let c = e % ${tileCols};
          let kk = e / ${tileCols};
          let element = (k0 + kk) * cols + col0 + c;`
      : `let kk = e % ${TILE_K};
          let c = e / ${TILE_K};
          let element = (col0 + c) * inner + k0 + kk;`;
  return {
    shaderKey: `turnlab_half_product_${direction}_${format}_${rowsPerThread}x${colsPerThread}`,
    variableNames: ['A', 'W'],
    outputShape,
    dispatchLayout: { x: [1], y: [0] },
    dispatch: [Math.ceil(outputShape[1] / tileCols), Math.ceil(outputShape[0] / tileRows), 1],
    workgroupSize: [SIDE, SIDE, 1],
    getUserCode: () => `
      ${widenHalfWgsl(format)}
      ${halfReaderWgsl('W')}
      var<workgroup> tileA : array<f32, ${TILE_K * tileRows}>;
      var<workgroup> tileB : array<f32, ${TILE_K * tileCols}>;
      fn main() {
        let rows = uniforms.aShape.x;
        let inner = uniforms.aShape.y;
        let cols = uniforms.outShape.y;
        let tx = i32(localId.x);
        let ty = i32(localId.y);
        let tid = ty * ${SIDE} + tx;
        let col0 = i32(workgroupId.x) * ${tileCols};
        let row0 = i32(workgroupId.y) * ${tileRows};
        var acc : array<f32, ${rowsPerThread * colsPerThread}>;
        for (var k0 = 0; k0 < inner; k0 = k0 + ${TILE_K}) {
          for (var e = tid; e < ${tileRows * TILE_K}; e = e + ${SIDE * SIDE}) {
            let m = e / ${TILE_K};
            let kk = e % ${TILE_K};
            var value = 0.0;
            if (row0 + m < rows && k0 + kk < inner) { value = A[(row0 + m) * inner + k0 + kk]; }
            tileA[kk * ${tileRows} + m] = value;
          }
          for (var e = tid; e < ${tileCols * TILE_K}; e = e + ${SIDE * SIDE}) {
            ${weightLoad}
            var value = 0.0;
            if (col0 + c < cols && k0 + kk < inner) { value = readW(element); }
            tileB[kk * ${tileCols} + c] = value;
          }
          workgroupBarrier();
          // Each slice's sum is formed apart, then added: a sum over a long inner dimension (an
          // LM head's vocabulary, in its gradient) rounds far less than one running total.
          var part = array<f32, ${rowsPerThread * colsPerThread}>();
          for (var kk = 0; kk < ${TILE_K}; kk = kk + 1) {
            var a : array<f32, ${rowsPerThread}>;
            for (var i = 0; i < ${rowsPerThread}; i = i + 1) { a[i] = tileA[kk * ${tileRows} + ty + ${SIDE} * i]; }
            for (var j = 0; j < ${colsPerThread}; j = j + 1) {
              let b = tileB[kk * ${tileCols} + tx + ${SIDE} * j];
              for (var i = 0; i < ${rowsPerThread}; i = i + 1) { part[i * ${colsPerThread} + j] = part[i * ${colsPerThread} + j] + a[i] * b; }
            }
          }
          for (var i = 0; i < ${rowsPerThread * colsPerThread}; i = i + 1) { acc[i] = acc[i] + part[i]; }
          workgroupBarrier();
        }
        for (var i = 0; i < ${rowsPerThread}; i = i + 1) {
          for (var j = 0; j < ${colsPerThread}; j = j + 1) {
            let r = row0 + ty + ${SIDE} * i;
            let c = col0 + tx + ${SIDE} * j;
            if (r < rows && c < cols) { result[r * cols + c] = acc[i * ${colsPerThread} + j]; }
          }
        }
      }`,
  };
}

/**
 * The products for a few rows (a decoding step, a short scored chunk): one thread per output
 * column, block of SKINNY_ROWS rows and piece of the inner dimension, no workgroup memory; the
 * rows' inputs come from cache. Tiles would leave most of their threads idle here, and their
 * barriers cost more than the product on a software device. Forward, adjacent threads read
 * adjacent halves of the weight and the inner dimension is one piece; the input gradient's
 * (an LM head's is its vocabulary) is cut into SEGMENT-long pieces, so that more threads share
 * it. Writes [rows, cols * pieces], the pieces last, so one reduction adds them.
 */
function skinnyProgram(direction: Direction, format: 'BF16' | 'F16', rows: number, inner: number, cols: number): ProgramCall {
  const pieces = direction === 'forward' ? 1 : Math.ceil(inner / SEGMENT);
  const segment = direction === 'forward' ? inner : SEGMENT;
  const threads = cols * Math.ceil(rows / SKINNY_ROWS) * pieces;
  const program: WebGPUProgram = {
    ...elementwiseProgram(`half_product_skinny_${direction}_${format}`, ['A', 'W'], [rows, cols * pieces], ''),
    dispatch: [Math.ceil(threads / 64), 1, 1],
    size: false,
    uniforms: 'threads : i32, cols : i32, pieces : i32, segment : i32,',
    getUserCode: () => `
      ${widenHalfWgsl(format)}
      ${halfReaderWgsl('W')}
      fn main(index : i32) {
        if (index >= uniforms.threads) { return; }
        let rows = uniforms.aShape.x;
        let inner = uniforms.aShape.y;
        let cols = uniforms.cols;
        let blocks = (rows + ${SKINNY_ROWS - 1}) / ${SKINNY_ROWS};
        let col = index % cols;
        let first = ((index / cols) % blocks) * ${SKINNY_ROWS};
        let piece = index / (cols * blocks);
        let start = piece * uniforms.segment;
        let end = min(inner, start + uniforms.segment);
        var sums : array<f32, ${SKINNY_ROWS}>;
        for (var k = start; k < end; k = k + 1) {
          let weight = readW(${direction === 'forward' ? 'k * cols + col' : 'col * inner + k'});
          for (var r = 0; r < ${SKINNY_ROWS}; r = r + 1) {
            if (first + r < rows) { sums[r] = sums[r] + A[(first + r) * inner + k] * weight; }
          }
        }
        for (var r = 0; r < ${SKINNY_ROWS}; r = r + 1) {
          if (first + r < rows) { result[((first + r) * cols + col) * uniforms.pieces + piece] = sums[r]; }
        }
      }`,
  };
  return {
    program,
    inputs: [],
    uniforms: [
      { type: 'int32', data: [threads] },
      { type: 'int32', data: [cols] },
      { type: 'int32', data: [pieces] },
      { type: 'int32', data: [segment] },
    ],
  };
}

export function registerHalfProductKernels(): void {
  registerProgramKernel(PRODUCT, (inputs, { gradient, f16, outer }) => {
    const { a, w } = inputs;
    const [rows, inner] = a.shape;
    const direction = gradient ? 'gradient' : 'forward';
    const format = f16 ? 'F16' : 'BF16';
    if (rows <= SKINNY_LIMIT) return { ...skinnyProgram(direction, format, rows, inner, outer), inputs: [a, w] };
    return { program: productProgram(direction, format, 4, 4, [rows, outer]), inputs: [a, w] };
  });
  registerProgramKernel(WIDEN, (inputs, { f16, rows, cols }) => {
    const format = f16 ? 'F16' : 'BF16';
    return { program: readingW(format, elementwiseProgram(`half_widen_${format}`, ['W'], [cols, rows], 'result[index] = readW(index);')), inputs: [inputs.w] };
  });
  registerProgramKernel(GATHER, (inputs, { f16, vocab, width }) => {
    const { ids, w } = inputs;
    const format = f16 ? 'F16' : 'BF16';
    // The table is stored [width, vocab]: a token's row is a column of it.
    const program = elementwiseProgram(
      `half_gather_${format}`,
      ['Ids', 'W'],
      [ids.shape[0], width],
      `let i = index / uniforms.width;
          let j = index % uniforms.width;
          let id = Ids[i];
          var value = 0.0;
          if (id >= 0 && id < uniforms.vocab) { value = readW(j * uniforms.vocab + id); }
          result[index] = value;`,
      'vocab : i32, width : i32,',
    );
    return {
      program: readingW(format, program),
      inputs: [ids, w],
      uniforms: [
        { type: 'int32', data: [vocab] },
        { type: 'int32', data: [width] },
      ],
    };
  });
}

/** The program with `readW` (its packed input W, widened) defined before its code. */
function readingW(format: 'BF16' | 'F16', program: WebGPUProgram): WebGPUProgram {
  return { ...program, getUserCode: () => `${widenHalfWgsl(format)}\n${halfReaderWgsl('W')}\n${program.getUserCode()}` };
}

function checkLayout(w: HalfMatrix): void {
  if (!w.inMajor) throw new Error(`A 16-bit matrix made for ${w.madeFor} cannot be read on WebGPU; load the model on this backend`);
}

/** X [rows, in] W^T: [rows, out]. */
export function halfProductForward(x: tf.Tensor2D, w: HalfMatrix): tf.Tensor2D {
  checkLayout(w);
  return runKernel(PRODUCT, { a: x, w: w.bits }, { gradient: 0, f16: w.format === 'F16' ? 1 : 0, outer: w.rows }) as tf.Tensor2D;
}

/** G [rows, out] W: [rows, in]. */
export function halfProductGradient(g: tf.Tensor2D, w: HalfMatrix): tf.Tensor2D {
  checkLayout(w);
  const [rows, inner] = g.shape;
  const product = runKernel(PRODUCT, { a: g, w: w.bits }, { gradient: 1, f16: w.format === 'F16' ? 1 : 0, outer: w.cols });
  if (rows > SKINNY_LIMIT || inner <= SEGMENT) return product as tf.Tensor2D;
  // The few-rows gradient's partial sums, one per piece of the inner dimension.
  const summed = product.reshape([rows, w.cols, Math.ceil(inner / SEGMENT)]).sum(2) as tf.Tensor2D;
  product.dispose();
  return summed;
}

/** The rows of the [vocab, width] table at ids (int32 [count]): [count, width], zeros for an id outside it. */
export function halfGatherRows(w: HalfMatrix, ids: tf.Tensor1D): tf.Tensor2D {
  checkLayout(w);
  return runKernel(GATHER, { ids, w: w.bits }, { f16: w.format === 'F16' ? 1 : 0, vocab: w.rows, width: w.cols }) as tf.Tensor2D;
}

/**
 * The matrix as a float32 tensor [in, out] (the layout the device's decoding kernels read), in
 * one dispatch: what a rollout's decoding session borrows until its kernels read 16-bit weights.
 */
export function widenOnDevice(w: HalfMatrix): tf.Tensor2D {
  checkLayout(w);
  return runKernel(WIDEN, { w: w.bits }, { f16: w.format === 'F16' ? 1 : 0, rows: w.rows, cols: w.cols }) as tf.Tensor2D;
}
