/**
 * The tiling of the decoding linear kernel (tiled-decode-linear.ts): the default choice for a
 * layer's shape, and overrides of it (TURNLAB_DECODE_TILE, or setTileOverride from a benchmark)
 * so a GPU run can try other tilings without editing the kernel. Every tiling, default or
 * overridden, is checked against the limits the kernel relies on before a pipeline is built.
 */

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
  /** Inputs per slice (a power of two, a multiple of ks). */
  bk: number;
  /** Threads per workgroup. */
  th: number;
  /** Inputs whose weights a thread loads before it multiplies (loads in flight per thread). */
  un: number;
  /** Whether the block's rows of x are staged in workgroup memory (else read from global memory). */
  stage: boolean;
}

/** What the kernel needs of a layer to tile it. */
export interface TileShape {
  rows: number;
  cols: number;
  inner: number;
  loraCols: number;
  gated: boolean;
  /** Which layer (for per-layer overrides): qkv, gated, or single (o: inner = cols; down: inner > cols). */
  form: 'single' | 'qkv' | 'gated';
}

/** The device's limits the tiling must respect. */
export interface TileLimits {
  /** Workgroup memory in floats. */
  sharedFloats: number;
  /** Threads per workgroup. */
  threads: number;
}

/** WebGPU's default limits (16 KiB of workgroup memory, 256 threads), what every device grants. */
export const DEFAULT_LIMITS: TileLimits = { sharedFloats: 4096, threads: 256 };
const THREADS = 256;
/** Workgroups below which a layer's inputs are split across the threads (about a device's SM count). */
const TARGET_GROUPS = 128;
/** Most ways the inputs are split inside a workgroup. */
const MAX_SPLIT = 64;

/** Threads per row thread that form x A: one quad of its columns each (gated: two, the gate's and the up's). */
export const loraThreads = (loraCols: number, gated: boolean) => Math.ceil(loraCols / (gated ? 8 : 4));
/** x A's columns as the threads cover them (a row of x A in workgroup memory). */
export const loraWidth = (loraCols: number, gated: boolean) => loraThreads(loraCols, gated) * (gated ? 8 : 4);
const pow2Ceil = (n: number) => 2 ** Math.ceil(Math.log2(Math.max(1, n)));
const pow2Floor = (n: number) => 2 ** Math.floor(Math.log2(Math.max(1, n)));
const isPow2 = (n: number) => Number.isInteger(n) && n > 0 && (n & (n - 1)) === 0;

/** Workgroup memory (floats) the kernel declares for a tiling: the staged rows, the tree sum's slices, x A. */
export function sharedFloats(c: TileConfig, shape: Pick<TileShape, 'loraCols' | 'gated'>): number {
  const bm = c.rt * c.tm;
  const accSets = shape.gated ? 2 : 1;
  // A staged row takes bk + 1 floats: the row threads of a warp then read different banks.
  const staged = c.stage ? bm * (c.bk + 1) : 0;
  const tree = c.ks > 1 ? (c.ks / 2) * (c.ct + c.lt) * c.rt * c.tm * 4 * accSets : 0;
  const xa = shape.loraCols > 0 ? bm * loraWidth(shape.loraCols, shape.gated) : 0;
  return Math.max(1, staged, tree, xa);
}

/** Fields an override may set: the tiling's own and `groups`, the workgroups the default aims for. */
export interface TileOverride {
  tm?: number;
  rt?: number;
  ct?: number;
  ks?: number;
  bk?: number;
  th?: number;
  un?: number;
  stage?: number;
  groups?: number;
}
const OVERRIDE_KEYS = ['tm', 'rt', 'ct', 'ks', 'bk', 'th', 'un', 'stage', 'groups'] as const;
/** Which layers an override applies to: every one, a form, or o / down / head (single, by their shapes). */
const SELECTORS = ['*', 'qkv', 'gated', 'single', 'o', 'down', 'head'] as const;
type Selector = (typeof SELECTORS)[number];
export type TileOverrides = Partial<Record<Selector, TileOverride>>;

function closest(word: string, options: readonly string[]): string {
  const distance = (a: string, b: string) => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    return d[a.length][b.length];
  };
  return [...options].sort((a, b) => distance(word, a) - distance(word, b))[0];
}

/**
 * Parses `tm=4,rt=8,ks=2` (every layer) or `qkv:rt=8,ks=2;down:ks=8,bk=64` (per layer: *, qkv,
 * gated, single, o (in = out), down (in > out), head (in < out)), `source` naming where it came
 * from in the one-line error.
 */
export function parseTileOverrides(text: string, source = 'TURNLAB_DECODE_TILE'): TileOverrides {
  const result: TileOverrides = {};
  for (const part of text.split(';').map((p) => p.trim()).filter(Boolean)) {
    const colon = part.indexOf(':');
    const selector = (colon >= 0 ? part.slice(0, colon).trim() : '*') as Selector;
    if (!SELECTORS.includes(selector)) throw new Error(`${source}: unknown layer "${selector}" (did you mean "${closest(selector, SELECTORS)}"? one of ${SELECTORS.join(', ')})`);
    const fields: TileOverride = {};
    for (const pair of (colon >= 0 ? part.slice(colon + 1) : part).split(',').map((p) => p.trim()).filter(Boolean)) {
      const [key, value] = pair.split('=').map((s) => s.trim());
      if (!(OVERRIDE_KEYS as readonly string[]).includes(key)) throw new Error(`${source}: unknown key "${key}" (did you mean "${closest(key, OVERRIDE_KEYS)}"? keys: ${OVERRIDE_KEYS.join(', ')})`);
      const n = Number(value);
      if (!Number.isInteger(n) || n < (key === 'stage' ? 0 : 1) || (key === 'stage' && n > 1)) throw new Error(`${source}: ${key}=${value ?? ''} must be ${key === 'stage' ? '0 or 1' : 'a positive integer'}`);
      fields[key as keyof TileOverride] = n;
    }
    result[selector] = { ...result[selector], ...fields };
  }
  return result;
}

let envOverrides: TileOverrides | undefined;
let benchOverrides: TileOverrides | null = null;
let overridesSet = 0;

/** Changes each time setTileOverride is called: what a cache of tilings keys on besides the shape. */
export const overridesVersion = () => overridesSet;

/** The overrides in force: a benchmark's (setTileOverride) or else TURNLAB_DECODE_TILE's. */
export function tileOverrides(): TileOverrides {
  if (benchOverrides) return benchOverrides;
  envOverrides ??= parseTileOverrides(process.env.TURNLAB_DECODE_TILE ?? '');
  return envOverrides;
}

/** Sets the overrides of later-built programs (null: back to TURNLAB_DECODE_TILE's). */
export function setTileOverride(overrides: TileOverrides | null): void {
  benchOverrides = overrides;
  overridesSet++;
}

/** The override fields for a layer: every layer's, then its form's, then o's, down's or head's. */
export function overrideFor(shape: TileShape, overrides: TileOverrides = tileOverrides()): TileOverride {
  const kind = layerKind(shape);
  const named = kind === 'o' || kind === 'down' || kind === 'head' ? [overrides[kind]] : [];
  return Object.assign({}, overrides['*'], overrides[shape.form], ...named);
}

/** A short text of a tiling (the sweep's table, the error below). */
export const describeTile = (c: TileConfig) => `tm=${c.tm},rt=${c.rt},ct=${c.ct},ks=${c.ks},bk=${c.bk},th=${c.th},un=${c.un},stage=${c.stage ? 1 : 0}`;

/** Why the kernel cannot run a tiling for a shape on a device; null if it can. */
export function tileProblem(c: TileConfig, shape: TileShape, limits: TileLimits = DEFAULT_LIMITS): string | null {
  if (!isPow2(c.ks) || !isPow2(c.bk) || !isPow2(c.un)) return 'ks, bk and un must be powers of two';
  if (c.bk < c.ks) return `bk (${c.bk}) must be at least ks (${c.ks})`;
  if (c.un > c.bk / c.ks) return `un (${c.un}) must be at most bk / ks (${c.bk / c.ks})`;
  if (c.ct < 1) return `ct must be at least 1 (the threads left after the LoRA threads: th / (rt * ks) - ${c.lt})`;
  if (c.th > limits.threads) return `th (${c.th}) exceeds the device's ${limits.threads} threads per workgroup`;
  if (c.rt * (c.ct + c.lt) * c.ks > c.th) return `rt * (ct + lt) * ks = ${c.rt} * (${c.ct} + ${c.lt}) * ${c.ks} exceeds th (${c.th})`;
  const floats = sharedFloats(c, shape);
  if (floats > limits.sharedFloats) return `needs ${floats} floats of workgroup memory, the device has ${limits.sharedFloats}`;
  return null;
}

/**
 * Which decoding layer a shape is, for its default tiling: o maps the width to itself, down
 * narrows, head widens (the LM head; the own transformer's ReLU layer has the same form).
 */
export const LAYER_KINDS = ['qkv', 'gated', 'o', 'down', 'head'] as const;
export type LayerKind = (typeof LAYER_KINDS)[number];
export function layerKind(shape: Pick<TileShape, 'form' | 'inner' | 'cols'>): LayerKind {
  if (shape.form !== 'single') return shape.form;
  return shape.inner === shape.cols ? 'o' : shape.inner > shape.cols ? 'down' : 'head';
}

/** What a layer's default tiling aims for: rows a block covers at most, threads, workgroups. */
export interface LayerDefaults {
  blockRows: number;
  th: number;
  groups: number;
}

/**
 * The default per layer kind, from the H200 sweep of 2026-11-28 (bench/decode-linear-sweep.ts,
 * Qwen2.5-0.5B's layers with LoRA rank 8 at 64 rows, bench/gpu-notes.md). At that shape these
 * rules give exactly the sweep's winners:
 * - q|k|v: 16-row blocks, 256 threads, inputs split 8 ways (tm=4,rt=4,ct=2,ks=8,bk=64: 576
 *   workgroups), 0.131 ms;
 * - o: the same rule (tm=4,rt=4,ct=6,ks=8,bk=64: 152 workgroups), 0.262 ms;
 * - gate/up: 4-row blocks of 64 threads, about 512 workgroups (tm=4,rt=1,ct=30,ks=2,bk=64,th=64:
 *   656), 0.590 ms against 2.359 for 64-row blocks;
 * - down: 4-row blocks of 256 threads, about 512 workgroups (tm=4,rt=1,ct=6,ks=32,bk=128: 608),
 *   0.197 ms against 0.918.
 * Rules rather than fixed tilings, so another LoRA rank, row count or width still gets a tiling
 * the kernel can run (the LoRA threads take column quads; fewer rows, fewer row threads).
 */
export const LAYER_DEFAULTS: Record<LayerKind, LayerDefaults> = {
  qkv: { blockRows: 16, th: THREADS, groups: TARGET_GROUPS },
  o: { blockRows: 16, th: THREADS, groups: TARGET_GROUPS },
  gated: { blockRows: 4, th: 64, groups: 512 },
  down: { blockRows: 4, th: THREADS, groups: 512 },
  head: { blockRows: 16, th: THREADS, groups: TARGET_GROUPS },
};

/** The tiling of a layer: the default for its shape, with any override's fields in its place, checked. */
export function tileConfig(shape: TileShape, limits: TileLimits = DEFAULT_LIMITS, override: TileOverride = overrideFor(shape)): TileConfig {
  const { rows, cols, inner, loraCols, gated } = shape;
  const defaults = LAYER_DEFAULTS[layerKind(shape)];
  const th = override.th ?? Math.min(defaults.th, limits.threads);
  const tm = override.tm ?? (rows >= 4 ? 4 : rows >= 2 ? 2 : 1);
  const lt = loraThreads(loraCols, gated);
  const width = loraWidth(loraCols, gated);
  // Small blocks: on an H200 (2026-11-28) blocks of 64 rows left the 0.5B shape's layers at one
  // workgroup per SM; blocks of 16 (q|k|v, o) or 4 rows (gate/up, down) with the inputs split
  // to fill the device ran 2-4x faster (see LAYER_DEFAULTS).
  let rt = override.rt ?? Math.min(pow2Floor(defaults.blockRows / tm), pow2Ceil(Math.ceil(rows / tm)));
  // x A of the block's rows must fit the workgroup memory for the epilogue, and each row thread
  // needs a main column quad besides its LoRA threads.
  if (override.rt === undefined) {
    while (rt > 1 && (rt * tm * width > limits.sharedFloats || rt * (lt + 1) > th)) rt /= 2;
    // A split of the inputs fixed by an override: fewer row threads, so its column quads fit.
    if (override.ks !== undefined) while (rt > 1 && Math.floor(th / (rt * override.ks)) - lt < (override.ct ?? 1)) rt /= 2;
  }
  const rowBlocks = Math.ceil(rows / (rt * tm));
  const target = override.groups ?? defaults.groups;
  const build = (ks: number): TileConfig => {
    const ct = override.ct ?? Math.floor(th / (rt * ks)) - lt;
    // The staged rows are padded by one float (see the kernel), so a block holds bm * (bk + 1):
    // the largest slice that fits the device's workgroup memory, up to 64 inputs (a barrier
    // every 32 inputs was the most a 16 KiB limit allowed for 64 rows).
    const fit = 2 ** Math.floor(Math.log2(Math.max(1, limits.sharedFloats / (rt * tm) - 1)));
    const bk = override.bk ?? Math.max(ks, Math.min(fit, Math.max(64, 4 * ks)));
    // Several weight loads in flight per thread before their multiply-adds (the loop over a
    // slice has a fixed count, so the shader compiler keeps them apart).
    const un = override.un ?? Math.min(4, bk / ks);
    return { tm, rt, ct, lt, ks, bk, th, un, stage: (override.stage ?? 1) === 1 };
  };
  let best: TileConfig | undefined;
  if (override.ks !== undefined) best = build(override.ks);
  else
    for (let ks = 1; ks <= MAX_SPLIT; ks *= 2) {
      const candidate = build(ks);
      if (candidate.ct < 1) break;
      // A slice of a few inputs per thread is not worth the tree sum.
      if (ks > 1 && inner / ks < 8) break;
      best = candidate;
      if (Math.ceil(cols / (4 * candidate.ct)) * rowBlocks >= target) break;
    }
  if (!best) throw new Error(`No tiling of the decoding linear layer fits ${loraCols} LoRA columns`);
  const problem = tileProblem(best, shape, limits);
  if (problem) throw new Error(`Decoding linear tiling ${describeTile(best)} for ${rows} x ${cols} over ${inner} inputs: ${problem} (set TURNLAB_DECODE_TILE to another tiling, or leave it unset)`);
  return best;
}
