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
import * as tf from '@tensorflow/tfjs';
import type { TensorInfo } from '@tensorflow/tfjs';
import type { WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';
import type { DecodeLinearForm } from '../fused-kernels';
import { registerProgramKernel, type ProgramCall } from './program';
import { DEFAULT_LIMITS, LAYER_KINDS, loraWidth, overridesVersion, sharedFloats, tileConfig, type LayerKind, type TileConfig, type TileLimits } from './tile-config';

export const TILED_DECODE_LINEAR = 'TurnLabTiledDecodeLinear';
/**
 * The kernel is registered once per layer kind (`TurnLabTiledDecodeLinear[gated]`, the same
 * function under each name), so tf.profile splits its GPU time by layer with no bookkeeping of
 * its own; the kinds are TURNLAB_DECODE_TILE's selectors.
 */
export const tiledDecodeLinearName = (kind: LayerKind) => `${TILED_DECODE_LINEAR}[${kind}]`;

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
  /** RMSNorm of x folded in: the gain (NormW) applied as x is staged, 1/rms of each row at the end. */
  norm: boolean;
  /** The gain read after the bias's columns in Bias instead of from NormW. */
  normInBias: boolean;
}

type Shaped = { shape: number[] };

/** A layer's description from its inputs (tensors, or the kernel's tensor infos). */
export function tiledLayerOf(
  form: DecodeLinearForm,
  t: { x: Shaped; weights: Shaped[]; bias?: Shaped; lora?: { a: Shaped }; residual?: Shaped; relu?: boolean; transposed?: boolean; norm?: unknown; normInBias?: boolean },
): TiledLayer {
  const segments = form === 'single' && t.transposed ? [t.weights[0].shape[0]] : t.weights.map((w) => w.shape[1]);
  return {
    form,
    rows: t.x.shape[0],
    cols: form === 'gated' ? segments[0] : segments.reduce((a, c) => a + c, 0),
    segments,
    bias: t.bias !== undefined,
    lora: t.lora !== undefined,
    loraCols: t.lora ? t.lora.a.shape[1] : 0,
    residual: t.residual !== undefined,
    relu: t.relu === true,
    transposed: t.transposed === true,
    norm: t.norm !== undefined || t.normInBias === true,
    normInBias: t.normInBias === true,
  };
}

/** Threads' staged elements of x per slice, where the staging is unrolled (the norm's squares ride on it). */
function stagedPerThread(c: TileConfig): number {
  return (c.rt * c.tm * c.bk) / c.th;
}

/**
 * Whether a tiling's staging is unrolled, each thread's elements in registers (with the norm
 * also where a slice has fewer elements than threads, e.g. one row: the rest stage nothing).
 */
function unrolledStaging(c: TileConfig, norm: boolean): boolean {
  const perThread = stagedPerThread(c);
  return (Number.isInteger(perThread) || (norm && perThread < 1)) && perThread <= 32;
}

/** Whether the layer's tiling can fold an RMSNorm in: x staged, each thread's staged elements unrolled. */
export function foldsNorm(layer: TiledLayer, inner: number, limits: TileLimits = DEFAULT_LIMITS): boolean {
  const c = tileConfig({ rows: layer.rows, cols: layer.cols, inner, loraCols: layer.loraCols, gated: layer.form === 'gated', form: layer.form }, limits);
  return c.stage && unrolledStaging(c, true);
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
export function tiledDecodeLinearProgram(
  layer: TiledLayer,
  names: string[],
  inner: number,
  limits: TileLimits = DEFAULT_LIMITS,
  config?: TileConfig,
): { program: WebGPUProgram; colBlocks: number; config: TileConfig } {
  // The default tiling of a layer is the same every step: the program found by the layer alone
  // skips choosing the tiling and its longer key (about 5% of a step's host time on llvmpipe).
  const layerKey = config ? '' : JSON.stringify([layer, names, inner, limits.sharedFloats, limits.threads, overridesVersion()]);
  const found = config ? undefined : byLayer.get(layerKey);
  if (found) return { program: { ...found.program }, colBlocks: found.colBlocks, config: found.config };
  const tiling = config ?? tileConfig({ rows: layer.rows, cols: layer.cols, inner, loraCols: layer.loraCols, gated: layer.form === 'gated', form: layer.form }, limits);
  // A decoding step builds the same few programs every step: built once each, then copied (tfjs
  // writes the copy's shaderKey, dispatch and pipeline). Building one took ~40 us of the host's
  // time a dispatch, on a step whose host work is what bounds it at few rows.
  const key = JSON.stringify([layer, names, inner % tiling.bk === 0, tiling, limits.sharedFloats]);
  let built = programCache.get(key);
  if (!built) {
    built = buildTiledProgram(layer, names, inner, tiling);
    programCache.set(key, built);
  }
  if (!config) byLayer.set(layerKey, { ...built, config: tiling });
  return { program: { ...built.program }, colBlocks: built.colBlocks, config: tiling };
}

/** Built programs with their default tiling, by the layer and the overrides' version. */
const byLayer = new Map<string, { program: WebGPUProgram; colBlocks: number; config: TileConfig }>();

/** Built programs by everything that shapes their source and dispatch. */
const programCache = new Map<string, { program: WebGPUProgram; colBlocks: number }>();

function buildTiledProgram(layer: TiledLayer, names: string[], inner: number, tiling: TileConfig): { program: WebGPUProgram; colBlocks: number } {
  const { form, rows, cols, bias, lora, residual, relu } = layer;
  const gated = form === 'gated';
  const { tm, rt, ct, lt, ks, bk, th, un, stage } = tiling;
  const qt = ct + lt;
  const bm = rt * tm;
  const colBlocks = Math.ceil(cols / (4 * ct));
  const groups = colBlocks * Math.ceil(rows / bm);
  const accSets = gated ? 2 : 1;
  const width = loraWidth(layer.loraCols, gated);
  // A staged row takes bk + 1 floats: the row threads of a warp then read different banks.
  const stride = bk + 1;
  const shared = sharedFloats(tiling, { loraCols: lora ? layer.loraCols : 0, gated });
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
  const steps = bk / ks;
  // Staging the block's rows of x: each thread's loads first, then its stores (all in flight).
  const norm = layer.norm;
  if (norm && !(stage && unrolledStaging(tiling, true))) throw new Error(`The tiling ${tiling.tm}x${tiling.rt} rows, ${bk} inputs a slice cannot fold an RMSNorm in (foldsNorm)`);
  // Unrolled: every thread's elements of a slice in registers; fewer elements than threads (norm only): one, or none.
  const slots = Math.ceil(stagedPerThread(tiling));
  const partial = bm * bk < th;
  const stageOne = (e: string, v: string) => `let ${v}e = ${e};
            let ${v} = select(0.0, X[(first + ${v}e / ${bk}) * inner + k0 + ${v}e % ${bk}], ${partial ? `${v}e < ${bm * bk} && ` : ''}first + ${v}e / ${bk} < rows && k0 + ${v}e % ${bk} < inner);`;
  const onlyStaged = (e: string, statement: string) => (partial ? `if (${e} < ${bm * bk}) { ${statement} }` : statement);
  // With the norm: the gain applied to what is staged, each staged element's square kept (its row is the same every slice).
  const gain = layer.normInBias ? (k: string) => `Bias[uniforms.outShape.y + min(${k}, inner - 1)]` : (k: string) => `NormW[min(${k}, inner - 1)]`;
  const stored = (i: number) => (norm ? `x${i} * ${gain(`k0 + x${i}e % ${bk}`)}` : `x${i}`);
  const staging =
    unrolledStaging(tiling, norm)
      ? `${Array.from({ length: slots }, (_, i) => stageOne(`tid + ${i * th}`, `x${i}`)).join('\n          ')}
          ${Array.from({ length: slots }, (_, i) => onlyStaged(`x${i}e`, `S[(x${i}e / ${bk}) * ${stride} + x${i}e % ${bk}] = ${stored(i)};`)).join('\n          ')}
          ${norm ? Array.from({ length: slots }, (_, i) => `squares${i} = squares${i} + x${i} * x${i};`).join('\n          ') : ''}`
      : `for (var e = tid; e < ${bm * bk}; e = e + ${th}) {
            let r = e / ${bk};
            let k = k0 + e % ${bk};
            S[r * ${stride} + e % ${bk}] = select(0.0, X[(first + r) * inner + k], first + r < rows && k < inner);
          }`;
  const loads = Array.from({ length: un }, (_, j) => `let kk${j} = (kStep + ${j}) * ${ks} + ks;
              var w${j} = vec4<f32>(0.0);
              ${gated ? `var u${j} = vec4<f32>(0.0);` : ''}
              if (${whole ? '' : `k0 + kk${j} < inner && `}isMain) {
                w${j} = weightQuad(k0 + kk${j}, col);
                ${gated ? `u${j} = upQuad(k0 + kk${j}, col);` : ''}
              } ${
                lora
                  ? `else if (${whole ? 'true' : `k0 + kk${j} < inner`}) {
                w${j} = loraQuad(k0 + kk${j}, loraColumn);
                ${gated ? `u${j} = loraQuad(k0 + kk${j}, loraColumn + 4);` : ''}
              }`
                  : ''
              }`).join('\n              ');
  // Unstaged, x is read from global memory (its row clamped: rows past the last are never written).
  const xAt = (j: number) => (stage ? `S[(rt * ${tm} + r) * ${stride} + kk${j}]` : `X[min(first + rt * ${tm} + r, rows - 1) * inner + min(k0 + kk${j}, inner - 1)]`);
  const fmas = Array.from({ length: un }, (_, j) => `let xv${j} = vec4<f32>(${xAt(j)});
                acc[r] = fma(xv${j}, w${j}, acc[r]);
                ${gated ? `upAcc[r] = fma(xv${j}, u${j}, upAcc[r]);` : ''}`).join('\n                ');
  const program: WebGPUProgram = {
    shaderKey: `turnlab_tiled_decode_linear_${form}_${bias ? 'b' : ''}${lora ? 'l' : ''}${residual ? 'r' : ''}${relu ? 'u' : ''}${norm ? (layer.normInBias ? 'nb' : 'n') : ''}${layer.transposed ? 't' : ''}${quads ? 'q' : ''}${whole ? 'w' : ''}_${tm}_${rt}_${ct}_${lt}_${ks}_${bk}_${th}_${un}_${stage ? 's' : 'g'}_${width}`,
    variableNames: names,
    variableComponents,
    outputShape: [rows, cols],
    dispatchLayout: { x: [0, 1] },
    dispatch: [groups, 1, 1],
    workgroupSize: [th, 1, 1],
    uniforms: 'scale : f32, colBlocks : i32, eps : f32,',
    getUserCode: () => `
      var<workgroup> S : array<f32, ${shared}>;
      ${norm ? `var<workgroup> R : array<f32, ${bm}>;` : ''}
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
        ${norm ? Array.from({ length: slots }, (_, i) => `var squares${i} = 0.0;`).join('\n        ') : ''}
        for (var k0 = 0; k0 < inner; k0 = k0 + ${bk}) {
          ${stage ? `${staging}
          workgroupBarrier();` : ''}
          if (working) {
            // A fixed count of steps, each loading the weights of ${un} inputs before multiplying.
            for (var kStep = 0; kStep < ${steps}; kStep = kStep + ${un}) {
              ${loads}
              for (var r = 0; r < ${tm}; r = r + 1) {
                ${fmas}
              }
            }
          }
          ${stage ? 'workgroupBarrier();' : ''}
        }
        ${
          norm
            ? `// The rows' sums of squares, laid out as staged, then 1/rms per row; the products scale by it
        // (both x W and x A are linear in x).
        ${Array.from({ length: slots }, (_, i) => onlyStaged(`tid + ${i * th}`, `S[((tid + ${i * th}) / ${bk}) * ${stride} + (tid + ${i * th}) % ${bk}] = squares${i};`)).join('\n        ')}
        workgroupBarrier();
        if (tid < ${bm}) {
          var sum = 0.0;
          for (var c = 0; c < ${bk}; c = c + 1) { sum = sum + S[tid * ${stride} + c]; }
          R[tid] = 1.0 / sqrt(sum / f32(inner) + uniforms.eps);
        }
        workgroupBarrier();
        for (var r = 0; r < ${tm}; r = r + 1) {
          ${sets.map((s) => `${s}[r] = ${s}[r] * R[rt * ${tm} + r];`).join('\n          ')}
        }`
            : ''
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

/** The active WebGPU device's workgroup limits (tfjs asks for the adapter's own), else WebGPU's defaults. */
export function deviceLimits(): TileLimits {
  const limits = (tf.backend() as unknown as { device?: { limits?: { maxComputeWorkgroupStorageSize?: number; maxComputeInvocationsPerWorkgroup?: number; maxComputeWorkgroupSizeX?: number } } }).device?.limits;
  if (!limits?.maxComputeWorkgroupStorageSize) return DEFAULT_LIMITS;
  return {
    sharedFloats: Math.floor(limits.maxComputeWorkgroupStorageSize / 4),
    threads: Math.min(limits.maxComputeInvocationsPerWorkgroup ?? 256, limits.maxComputeWorkgroupSizeX ?? 256),
  };
}

/** Registers the kernel under each layer kind's name; inputs named as decode-linear.ts names them (x, w0.., bias, a, b, residual). */
export function registerTiledDecodeLinearKernel(): void {
  for (const kind of LAYER_KINDS) registerProgramKernel(tiledDecodeLinearName(kind), buildTiledCall);
}

function buildTiledCall(inputs: Record<string, TensorInfo>, { form: formCode, scale, relu, transposed, eps, normInBias }: Record<string, number>): ProgramCall {
  const form = (['single', 'qkv', 'gated'] as const)[formCode];
  const { x, w0, w1, w2, bias, a, b, residual, normWeight } = inputs;
  const layer = tiledLayerOf(form, { x, weights: [w0, w1, w2].filter((w) => w !== undefined), bias, lora: a ? { a } : undefined, residual, relu: relu === 1, transposed: transposed === 1, norm: normWeight, normInBias: normInBias === 1 });
  const named: [string, TensorInfo | undefined][] = [['X', x], ['W0', w0], ['W1', w1], ['W2', w2], ['Bias', bias], ['A', a], ['B', b], ['Residual', residual], ['NormW', normWeight]];
  const bound = named.filter((n): n is [string, TensorInfo] => n[1] !== undefined);
  const { program, colBlocks } = tiledDecodeLinearProgram(layer, bound.map(([n]) => n), x.shape[1], deviceLimits());
  return {
    program,
    inputs: bound.map(([, t]) => t),
    uniforms: [
      { type: 'float32', data: [scale ?? 1] },
      { type: 'int32', data: [colBlocks] },
      { type: 'float32', data: [eps ?? 0] },
    ],
  };
}
