/**
 * The decoding step's linear layers as a register-tiled product, one dispatch each at every row
 * count, with the same forms as decode-linear.ts (single with bias / LoRA / ReLU / residual, qkv,
 * gated with SwiGLU; W may be [out, in] for a tied head).
 *
 * A workgroup of 256 threads covers a block of BM rows (up to 64) and a block of columns. Per
 * slice of BK inputs, the block's rows of x are staged in workgroup memory; each thread then
 * multiplies TM rows of it by one quad of 4 weight columns (one vec4 load feeds 4 x TM
 * multiply-adds; gated: a gate quad and an up quad), so each weight element is read once per
 * row block, from global memory, coalesced across the threads of a column block. With 64 rows
 * a weight matrix is read once per step and reused 64 times: the arithmetic, not the memory,
 * bounds it.
 *
 * The LoRA term's x A is formed in the same pass: A's columns are a few more column quads of
 * the block, computed by their own threads from the same staged rows (x A of the block's rows
 * is then in workgroup memory for the epilogue's (x A) B). Where a layer has few column blocks
 * (o and down: 896 columns), the threads also split the inputs KS ways and add the slices in a
 * fixed tree order, so there are enough workgroups to occupy the device.
 *
 * Weights are read in one place, `weightSnippet` (`weightQuad`, `upQuad`): another storage of
 * the weights (packed 16-bit) replaces that snippet and nothing else.
 */
import type { TensorInfo } from '@tensorflow/tfjs';
import type { WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';
import type { DecodeLinearForm } from '../fused-kernels';
import { registerProgramKernel } from './program';

export const TILED_DECODE_LINEAR = 'TurnLabTiledDecodeLinear';
const THREADS = 256;
/** Workgroup memory in floats (16 KiB, the WebGPU default limit). */
const SHARED = 4096;
/** Workgroups below which a layer's inputs are split across the threads (about a device's SM count). */
const TARGET_GROUPS = 128;
/** Most ways the inputs are split inside a workgroup. */
const MAX_SPLIT = 64;

export interface TileConfig {
  /** Rows per thread. */
  tm: number;
  /** Row threads: a block covers rt * tm rows. */
  rt: number;
  /** Main column quads per block (4 * ct columns). */
  ct: number;
  /** LoRA threads per row thread (each one quad of x A's columns; gated: two). */
  lt: number;
  /** Ways the inputs are split (a power of two). */
  ks: number;
  /** Inputs staged per slice (a power of two). */
  bk: number;
}

/** Threads per row thread that form x A: one quad of its columns each (gated: two, the gate's and the up's). */
const loraThreads = (loraCols: number, gated: boolean) => Math.ceil(loraCols / (gated ? 8 : 4));
/** x A's columns as the threads cover them (a row of x A in workgroup memory). */
const loraWidth = (loraCols: number, gated: boolean) => loraThreads(loraCols, gated) * (gated ? 8 : 4);
const pow2Ceil = (n: number) => 2 ** Math.ceil(Math.log2(Math.max(1, n)));

/** The tiling of a layer of `rows` x `cols` outputs over `inner` inputs with `loraCols` columns of A. */
export function tileConfig(rows: number, cols: number, inner: number, loraCols: number, gated: boolean): TileConfig {
  const tm = rows >= 4 ? 4 : rows >= 2 ? 2 : 1;
  let rt = Math.min(16, pow2Ceil(Math.ceil(rows / tm)));
  const lt = loraThreads(loraCols, gated);
  // x A of the block's rows must fit the workgroup memory for the epilogue, and each row thread
  // needs a main column quad besides its LoRA threads.
  while (rt > 1 && (rt * tm * loraWidth(loraCols, gated) > SHARED || rt * (lt + 1) > THREADS)) rt /= 2;
  const rowBlocks = Math.ceil(rows / (rt * tm));
  let best: TileConfig | undefined;
  for (let ks = 1; ks <= MAX_SPLIT; ks *= 2) {
    const ct = Math.floor(THREADS / (rt * ks)) - lt;
    if (ct < 1) break;
    // A slice of a few inputs per thread is not worth the tree sum.
    if (ks > 1 && inner / ks < 8) break;
    // The staged rows are padded by one float (see the kernel), so a block holds bm * (bk + 1).
    const bk = Math.min(SHARED / (rt * tm) / 2, Math.max(32, 4 * ks));
    best = { tm, rt, ct, lt, ks, bk };
    if (Math.ceil(cols / (4 * ct)) * rowBlocks >= TARGET_GROUPS) break;
  }
  if (!best) throw new Error(`No tiling of the decoding linear layer fits ${loraCols} LoRA columns`);
  return best;
}

export interface TiledLayer {
  form: DecodeLinearForm;
  rows: number;
  cols: number;
  /** Column counts of W0, W1, W2 (qkv: q, k, v; gated: gate, up). */
  segments: number[];
  bias: boolean;
  lora: boolean;
  loraCols: number;
  residual: boolean;
  relu: boolean;
  transposed: boolean;
}

/** Whether every weight can be read as vec4 quads (whole quads of columns, never across two weights). */
export function quadWeights(layer: TiledLayer): boolean {
  return !layer.transposed && layer.segments.every((c) => c % 4 === 0);
}

/**
 * The one place the kernel reads weights: `weightQuad(k, col)` is row k of W (gated: the gate),
 * columns col..col+3 (zero past the last column); `upQuad` likewise of the up weight.
 */
function weightSnippet(layer: TiledLayer): string {
  const { form, transposed } = layer;
  if (quadWeights(layer)) {
    const quad = (name: string, width: string) => `${name}[k * (${width} / 4) + col / 4]`;
    if (form === 'qkv')
      return `fn weightQuad(k : i32, col : i32) -> vec4<f32> {
        let c0 = uniforms.w0Shape.y;
        let c1 = uniforms.w1Shape.y;
        if (col < c0) { return ${quad('W0', 'c0')}; }
        if (col < c0 + c1) { return W1[k * (c1 / 4) + (col - c0) / 4]; }
        if (col < uniforms.outShape.y) { return W2[k * (uniforms.w2Shape.y / 4) + (col - c0 - c1) / 4]; }
        return vec4<f32>(0.0);
      }`;
    return `fn weightQuad(k : i32, col : i32) -> vec4<f32> {
        if (col >= uniforms.outShape.y) { return vec4<f32>(0.0); }
        return ${quad('W0', 'uniforms.w0Shape.y')};
      }
      ${form === 'gated' ? `fn upQuad(k : i32, col : i32) -> vec4<f32> {
        if (col >= uniforms.outShape.y) { return vec4<f32>(0.0); }
        return ${quad('W1', 'uniforms.w1Shape.y')};
      }` : ''}`;
  }
  // Scalar reads: columns not in whole quads, or W given [out, in].
  const at = transposed
    ? `fn weightAt(k : i32, col : i32) -> f32 { return W0[col * uniforms.w0Shape.y + k]; }`
    : form === 'qkv'
      ? `fn weightAt(k : i32, col : i32) -> f32 {
        let c0 = uniforms.w0Shape.y;
        let c1 = uniforms.w1Shape.y;
        if (col < c0) { return W0[k * c0 + col]; }
        if (col < c0 + c1) { return W1[k * c1 + col - c0]; }
        return W2[k * uniforms.w2Shape.y + col - c0 - c1];
      }`
      : `fn weightAt(k : i32, col : i32) -> f32 { return W0[k * uniforms.w0Shape.y + col]; }`;
  const quadOf = (fn: string) => `vec4<f32>(${[0, 1, 2, 3].map((i) => `select(0.0, ${fn}(k, col + ${i}), col + ${i} < uniforms.outShape.y)`).join(', ')})`;
  return `${at}
      fn weightQuad(k : i32, col : i32) -> vec4<f32> { return ${quadOf('weightAt')}; }
      ${form === 'gated' ? `fn upAt(k : i32, col : i32) -> f32 { return W1[k * uniforms.w1Shape.y + col]; }
      fn upQuad(k : i32, col : i32) -> vec4<f32> { return ${quadOf('upAt')}; }` : ''}`;
}

/** Builds the program of one layer (variable names as decode-linear.ts binds them). */
export function tiledDecodeLinearProgram(layer: TiledLayer, names: string[], inner: number): { program: WebGPUProgram; colBlocks: number } {
  const { form, rows, cols, bias, lora, residual, relu } = layer;
  const gated = form === 'gated';
  const { tm, rt, ct, lt, ks, bk } = tileConfig(rows, cols, inner, layer.loraCols, gated);
  const qt = ct + lt;
  const bm = rt * tm;
  const colBlocks = Math.ceil(cols / (4 * ct));
  const groups = colBlocks * Math.ceil(rows / bm);
  const accSets = gated ? 2 : 1;
  const width = loraWidth(layer.loraCols, gated);
  // A staged row takes bk + 1 floats: the row threads of a warp then read different banks.
  const stride = bk + 1;
  const shared = Math.max(bm * stride, ks > 1 ? (ks / 2) * qt * rt * tm * 4 * accSets : 0, lora ? bm * width : 0);
  const quads = quadWeights(layer);
  // Inputs in whole slices (896, 4,864): the inner loop needs no bound check.
  const whole = inner % bk === 0;
  const variableComponents = names.map((n) => (quads && /^W\d$/.test(n) ? 4 : 1));
  const sets = gated ? ['acc', 'upAcc'] : ['acc'];
  // Tree sum over the input slices: slices [h, 2h) hand their sums to slices [0, h).
  const treeSum = `for (var h = ${ks / 2}; h > 0; h = h / 2) {
          if (ks >= h && ks < 2 * h) {
            for (var r = 0; r < ${tm}; r = r + 1) {
              let at = (((ks - h) * ${qt * rt} + slot) * ${tm} + r) * ${4 * accSets};
              ${sets.map((s, i) => `for (var c = 0; c < 4; c = c + 1) { S[at + ${4 * i} + c] = ${s}[r][c]; }`).join('\n              ')}
            }
          }
          workgroupBarrier();
          if (ks < h) {
            for (var r = 0; r < ${tm}; r = r + 1) {
              let at = ((ks * ${qt * rt} + slot) * ${tm} + r) * ${4 * accSets};
              ${sets.map((s, i) => `${s}[r] = ${s}[r] + vec4<f32>(S[at + ${4 * i}], S[at + ${4 * i + 1}], S[at + ${4 * i + 2}], S[at + ${4 * i + 3}]);`).join('\n              ')}
            }
          }
          workgroupBarrier();
        }`;
  const loraTerm = (value: string, segment: string, bColumn: string) =>
    lora
      ? `{
              var low = 0.0;
              for (var j = 0; j < rank; j = j + 1) { low = low + S[(rt * ${tm} + r) * ${width} + ${segment} * rank + j] * B[j * uniforms.bShape.y + ${bColumn}]; }
              ${value} = ${value} + low * uniforms.scale;
            }`
      : '';
  const program: WebGPUProgram = {
    shaderKey: `turnlab_tiled_decode_linear_${form}_${bias ? 'b' : ''}${lora ? 'l' : ''}${residual ? 'r' : ''}${relu ? 'u' : ''}${layer.transposed ? 't' : ''}${quads ? 'q' : ''}${whole ? 'w' : ''}_${tm}_${rt}_${ct}_${lt}_${ks}_${bk}_${width}`,
    variableNames: names,
    variableComponents,
    outputShape: [rows, cols],
    dispatchLayout: { x: [0, 1] },
    dispatch: [groups, 1, 1],
    workgroupSize: [THREADS, 1, 1],
    uniforms: 'scale : f32, colBlocks : i32,',
    getUserCode: () => `
      var<workgroup> S : array<f32, ${shared}>;
      ${weightSnippet(layer)}
      ${
        lora
          ? `fn loraAt(k : i32, j : i32) -> f32 { return select(0.0, A[k * uniforms.aShape.y + j], j < uniforms.aShape.y); }
      fn loraQuad(k : i32, j : i32) -> vec4<f32> { return vec4<f32>(loraAt(k, j), loraAt(k, j + 1), loraAt(k, j + 2), loraAt(k, j + 3)); }`
          : ''
      }
      fn main(index : i32) {
        let group = i32(workgroupId.z * numWorkgroups.x * numWorkgroups.y + workgroupId.y * numWorkgroups.x + workgroupId.x);
        let tid = i32(localId.x);
        let inner = uniforms.xShape.y;
        let rows = uniforms.outShape.x;
        let cols = uniforms.outShape.y;
        let colBlock = group % uniforms.colBlocks;
        let first = (group / uniforms.colBlocks) * ${bm};
        // Thread tid: quad q (main columns first, then x A's), row thread rt, input slice ks.
        let q = tid % ${qt};
        let rt = (tid / ${qt}) % ${rt};
        let slot = tid % ${qt * rt};
        let ks = tid / ${qt * rt};
        let working = ks < ${ks};
        let isMain = q < ${ct};
        let col = (colBlock * ${ct} + q) * 4;
        let loraColumn = (q - ${ct}) * ${gated ? 8 : 4};
        ${sets.map((s) => `var ${s} : array<vec4<f32>, ${tm}>;`).join('\n        ')}
        for (var k0 = 0; k0 < inner; k0 = k0 + ${bk}) {
          for (var e = tid; e < ${bm * bk}; e = e + ${THREADS}) {
            let r = e / ${bk};
            let k = k0 + e % ${bk};
            S[r * ${stride} + e % ${bk}] = select(0.0, X[(first + r) * inner + k], first + r < rows && k < inner);
          }
          workgroupBarrier();
          if (working) {
            for (var kk = ks; kk < ${bk}; kk = kk + ${ks}) {
              let k = k0 + kk;
              if (${whole ? 'true' : 'k < inner'}) {
                var w : vec4<f32>;
                ${gated ? 'var u : vec4<f32>;' : ''}
                if (isMain) {
                  w = weightQuad(k, col);
                  ${gated ? 'u = upQuad(k, col);' : ''}
                } ${
                  lora
                    ? `else {
                  w = loraQuad(k, loraColumn);
                  ${gated ? 'u = loraQuad(k, loraColumn + 4);' : ''}
                }`
                    : ''
                }
                for (var r = 0; r < ${tm}; r = r + 1) {
                  let xv = vec4<f32>(S[(rt * ${tm} + r) * ${stride} + kk]);
                  acc[r] = fma(xv, w, acc[r]);
                  ${gated ? 'upAcc[r] = fma(xv, u, upAcc[r]);' : ''}
                }
              }
            }
          }
          workgroupBarrier();
        }
        ${ks > 1 ? treeSum : ''}
        ${
          lora
            ? `// x A of the block's rows into workgroup memory, for every column's (x A) B.
        if (working && ks == 0 && !isMain) {
          for (var r = 0; r < ${tm}; r = r + 1) {
            ${sets.map((s, i) => `for (var c = 0; c < 4; c = c + 1) { S[(rt * ${tm} + r) * ${width} + loraColumn + ${4 * i} + c] = ${s}[r][c]; }`).join('\n            ')}
          }
        }
        workgroupBarrier();
        let rank = uniforms.bShape.x;`
            : ''
        }
        if (working && ks == 0 && isMain && group < uniforms.colBlocks * ((rows + ${bm - 1}) / ${bm})) {
          ${form === 'qkv' ? 'let c0 = uniforms.w0Shape.y; let c1 = uniforms.w1Shape.y;' : ''}
          for (var r = 0; r < ${tm}; r = r + 1) {
            let row = first + rt * ${tm} + r;
            for (var c = 0; c < 4; c = c + 1) {
              let column = col + c;
              if (row < rows && column < cols) {
                var y = acc[r][c];
                ${bias ? 'y = y + Bias[column];' : ''}
                ${form === 'qkv' ? 'let segment = select(select(2, 1, column < c0 + c1), 0, column < c0);' : ''}
                ${loraTerm('y', form === 'qkv' ? 'segment' : '0', 'column')}
                ${
                  gated
                    ? `var up = upAcc[r][c];
                ${loraTerm('up', '1', 'cols + column')}
                result[row * cols + column] = y / (1.0 + exp(-y)) * up;`
                    : `result[row * cols + column] = ${relu ? 'max(y, 0.0)' : 'y'}${residual ? ' + Residual[row * cols + column]' : ''};`
                }
              }
            }
          }
        }
      }`,
  };
  return { program, colBlocks };
}

/** Registers the kernel; inputs named as decode-linear.ts names them (x, w0.., bias, a, b, residual). */
export function registerTiledDecodeLinearKernel(): void {
  registerProgramKernel(TILED_DECODE_LINEAR, (inputs, { form: formCode, scale, relu, transposed }) => {
    const form = (['single', 'qkv', 'gated'] as const)[formCode];
    const { x, w0, w1, w2, bias, a, b, residual } = inputs;
    const weights = [w0, w1, w2].filter((w) => w !== undefined);
    const segments = form === 'single' && transposed ? [w0.shape[0]] : weights.map((w) => w.shape[1]);
    const layer: TiledLayer = {
      form,
      rows: x.shape[0],
      cols: form === 'gated' ? segments[0] : segments.reduce((s, c) => s + c, 0),
      segments,
      bias: bias !== undefined,
      lora: a !== undefined,
      loraCols: a ? a.shape[1] : 0,
      residual: residual !== undefined,
      relu: relu === 1,
      transposed: transposed === 1,
    };
    const named: [string, TensorInfo | undefined][] = [['X', x], ['W0', w0], ['W1', w1], ['W2', w2], ['Bias', bias], ['A', a], ['B', b], ['Residual', residual]];
    const bound = named.filter((n): n is [string, TensorInfo] => n[1] !== undefined);
    const { program, colBlocks } = tiledDecodeLinearProgram(layer, bound.map(([n]) => n), x.shape[1]);
    return {
      program,
      inputs: bound.map(([, t]) => t),
      uniforms: [
        { type: 'float32', data: [scale ?? 1] },
        { type: 'int32', data: [colBlocks] },
      ],
    };
  });
}
