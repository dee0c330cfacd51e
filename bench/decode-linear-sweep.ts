/**
 * The tiled decoding linear kernel (trainer-core/model/webgpu/tiled-decode-linear.ts) under many
 * tilings, for Qwen2.5-0.5B's decoding layer shapes at one row count (q|k|v, o, gate/up, down and
 * the LM head with the final RMSNorm folded in, 896 -> 151,936): random float32 weights,
 * each tiling's output checked against a tfjs reference (a fast wrong tiling cannot win), then
 * timed by GPU timestamps (tf.profile, as `bench/llm.ts --profile`) and by wall time over the
 * repeats with one sync. Prints a line per tiling as it goes (a run cut short still leaves its
 * results) and the best tiling per layer, as a TURNLAB_DECODE_TILE value for `bench/llm.ts`.
 *
 *   npx tsx bench/decode-linear-sweep.ts --backend webgpu [--rows 64] [--quick] [--budget-s 140]
 */
import { pathToFileURL } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { releaseBackend, selectBackend, type BackendRequest } from '../trainer-core/backend';
import { fusedDecodeLinear } from '../trainer-core/model/webgpu/decode-linear';
import { TILED_DECODE_LINEAR, deviceLimits } from '../trainer-core/model/webgpu/tiled-decode-linear';
import { DEFAULT_LIMITS, describeTile, layerKind, setTileOverride, tileConfig, type TileConfig, type TileOverride, type TileShape } from '../trainer-core/model/webgpu/tile-config';

const HELP = `usage: npx tsx bench/decode-linear-sweep.ts [--backend webgpu] [--rows N] [--quick] [--repeats N] [--budget-s S] [--layers qkv,o,gateup,down,head]
  --rows      rows decoded at once, default 64
  --quick     a few tilings and repeats (a check on llvmpipe)
  --repeats   most timed dispatches per tiling (fewer where one takes long), default 30 (quick: 2)
  --budget-s  seconds for the whole sweep (each layer gets its share; tilings past it are skipped), default 140
  --layers    which of Qwen2.5-0.5B's layers, default qkv,o,gateup,down,head
  --width     the model width (default 896) and --mlp the MLP width (default 4864): smaller shapes for a check
  --vocab     the LM head's columns, default 151936 (its 545 MiB weight exceeds llvmpipe's 128 MiB
              binding: e.g. --vocab 4096 there)
  --only      only the tilings of these labels (as the table names them), e.g. default,unstaged`;

interface Options {
  backend: BackendRequest;
  rows: number;
  quick: boolean;
  repeats: number;
  budgetS: number;
  layers: string[];
  width: number;
  mlp: number;
  vocab: number;
  /** Only the tilings of these labels (empty: all). */
  only: string[];
}

const LAYER_NAMES = ['qkv', 'o', 'gateup', 'down', 'head'];

function fail(message: string): never {
  console.error(`decode-linear-sweep: ${message}`);
  process.exit(2);
}

function parseArgs(args: readonly string[]): Options | 'help' {
  const o: Options = { backend: 'webgpu', rows: 64, quick: false, repeats: 0, budgetS: 140, layers: LAYER_NAMES, width: 896, mlp: 4864, vocab: 151936, only: [] };
  const positive = (flag: string, v: string | undefined) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) fail(`${flag} needs a positive integer, got "${v ?? ''}"`);
    return n;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--help' || arg === '-h') return 'help';
    else if (arg === '--quick') o.quick = true;
    else if (arg === '--backend') o.backend = args[++i] as BackendRequest;
    else if (arg === '--rows') o.rows = positive(arg, args[++i]);
    else if (arg === '--repeats') o.repeats = positive(arg, args[++i]);
    else if (arg === '--budget-s') o.budgetS = positive(arg, args[++i]);
    else if (arg === '--width') o.width = positive(arg, args[++i]);
    else if (arg === '--mlp') o.mlp = positive(arg, args[++i]);
    else if (arg === '--vocab') o.vocab = positive(arg, args[++i]);
    else if (arg === '--only') o.only = (args[++i] ?? '').split(',').filter(Boolean);
    else if (arg === '--layers') {
      o.layers = (args[++i] ?? '').split(',').filter(Boolean);
      const bad = o.layers.find((l) => !LAYER_NAMES.includes(l));
      if (bad || o.layers.length === 0) fail(`--layers: unknown layer "${bad ?? ''}" (any of ${LAYER_NAMES.join(',')})`);
    } else fail(`unknown argument "${arg}" (--help lists them)`);
  }
  if (o.repeats === 0) o.repeats = o.quick ? 2 : 30;
  return o;
}

/** One layer of the decoding step: its inputs, the kernel call, and the tfjs reference. */
interface Layer {
  name: string;
  /** TURNLAB_DECODE_TILE's selector for this layer. */
  selector: string;
  shape: TileShape;
  flops: number;
  bytes: number;
  run: () => tf.Tensor2D;
  reference: () => tf.Tensor2D;
}

function buildLayers(o: Options): Layer[] {
  const rank = 8;
  const scale = 2;
  const { rows, width: d, mlp } = o;
  const kv = Math.max(4, Math.round((d * 128) / 896 / 4) * 4);
  let seed = 1;
  const normal = (shape: number[], std: number): tf.Tensor2D => tf.randomNormal<tf.Rank>(shape, 0, std, 'float32', seed++) as tf.Tensor2D;
  const mm = (a: tf.Tensor, b: tf.Tensor) => tf.matMul(a as tf.Tensor2D, b as tf.Tensor2D);
  const x = normal([rows, d], 1);
  const xm = normal([rows, mlp], 1);
  const residual = normal([rows, d], 1);
  // Weights of std 1/sqrt(in): outputs of order 1, where 1e-4 is a strict bound.
  const w = (inner: number, cols: number) => normal([inner, cols], 1 / Math.sqrt(inner));
  const loraA = (inner: number, cols: number) => normal([inner, cols], 1 / Math.sqrt(inner));
  const loraB = (cols: number) => normal([rank, cols], 0.1);
  const layers: Layer[] = [];
  const bytesOf = (...ts: tf.Tensor[]) => ts.reduce((s, t) => s + t.size * 4, 0);
  const flopsOf = (inner: number, cols: number, loraCols: number) => 2 * rows * inner * (cols + loraCols) + 2 * rows * rank * cols;
  if (o.layers.includes('qkv')) {
    const ws = [w(d, d), w(d, kv), w(d, kv)];
    const bias = normal([d + 2 * kv], 0.1);
    const as = [loraA(d, rank), loraA(d, rank), loraA(d, rank)];
    const bs = [loraB(d), loraB(kv), loraB(kv)];
    const a = tf.concat(as, 1) as tf.Tensor2D;
    const b = tf.concat(bs, 1) as tf.Tensor2D;
    const cols = d + 2 * kv;
    layers.push({
      name: 'qkv',
      selector: 'qkv',
      shape: { rows, cols, inner: d, loraCols: 3 * rank, gated: false, form: 'qkv' },
      flops: flopsOf(d, cols, 3 * rank),
      bytes: bytesOf(...ws, a, b, bias, x) + rows * cols * 4,
      run: () => fusedDecodeLinear('qkv', { x, weights: ws, bias, lora: { a, b, scale } })!,
      reference: () => tf.concat(ws.map((wi, i) => mm(x, wi).add(mm(mm(x, as[i]), bs[i]).mul(scale))), 1).add(bias) as tf.Tensor2D,
    });
  }
  const single = (name: string, inner: number, input: tf.Tensor2D) => {
    const wo = w(inner, d);
    const a = loraA(inner, rank);
    const b = loraB(d);
    layers.push({
      name,
      selector: name,
      shape: { rows, cols: d, inner, loraCols: rank, gated: false, form: 'single' },
      flops: flopsOf(inner, d, rank),
      bytes: bytesOf(wo, a, b, input, residual) + rows * d * 4,
      run: () => fusedDecodeLinear('single', { x: input, weights: [wo], lora: { a, b, scale }, residual })!,
      reference: () => residual.add(mm(input, wo)).add(mm(mm(input, a), b).mul(scale)) as tf.Tensor2D,
    });
  };
  if (o.layers.includes('o')) single('o', d, x);
  if (o.layers.includes('gateup')) {
    const [wg, wu] = [w(d, mlp), w(d, mlp)];
    const [ag, au] = [loraA(d, rank), loraA(d, rank)];
    const [bg, bu] = [loraB(mlp), loraB(mlp)];
    const a = tf.concat([ag, au], 1) as tf.Tensor2D;
    const b = tf.concat([bg, bu], 1) as tf.Tensor2D;
    layers.push({
      name: 'gateup',
      selector: 'gated',
      shape: { rows, cols: mlp, inner: d, loraCols: 2 * rank, gated: true, form: 'gated' },
      flops: flopsOf(d, 2 * mlp, 2 * rank),
      bytes: bytesOf(wg, wu, a, b, x) + rows * mlp * 4,
      run: () => fusedDecodeLinear('gated', { x, weights: [wg, wu], lora: { a, b, scale } })!,
      reference: () => {
        const gate = mm(x, wg).add(mm(mm(x, ag), bg).mul(scale));
        const up = mm(x, wu).add(mm(mm(x, au), bu).mul(scale));
        return gate.mul(tf.sigmoid(gate)).mul(up) as tf.Tensor2D;
      },
    });
  }
  if (o.layers.includes('down')) single('down', mlp, xm);
  if (o.layers.includes('head')) {
    // As the decoding step calls it (hf/decode-session.ts): the final RMSNorm folded in, no LoRA.
    const wh = w(d, o.vocab);
    const gain = tf.add(1, normal([d], 0.1)) as tf.Tensor1D;
    const eps = 1e-6;
    layers.push({
      name: 'head',
      selector: 'head',
      shape: { rows, cols: o.vocab, inner: d, loraCols: 0, gated: false, form: 'single' },
      flops: 2 * rows * d * o.vocab,
      bytes: bytesOf(wh, gain, x) + rows * o.vocab * 4,
      run: () => fusedDecodeLinear('single', { x, norm: { weight: gain, eps }, weights: [wh] })!,
      reference: () => mm(x.mul(tf.rsqrt(x.square().mean(1, true).add(eps))).mul(gain), wh) as tf.Tensor2D,
    });
  }
  return layers;
}

/**
 * The tilings tried for a layer, most telling first (a sweep cut short keeps those): the default,
 * the kernel's first tiling, then one change at a time (loads in flight, slice length, staging,
 * threads), then the row block against the input split (how many workgroups), then thread shapes.
 */
export function candidates(shape: TileShape, quick: boolean): { label: string; override: TileOverride }[] {
  // The tiling before this sweep: one weight load per multiply-add loop, slices sized for 16 KiB.
  const d = tileConfig(shape, DEFAULT_LIMITS, {});
  const legacy = { rt: d.rt, ks: d.ks, un: 1, bk: Math.min(4096 / (d.rt * d.tm) / 2, Math.max(32, 4 * d.ks)) };
  const list: { label: string; override: TileOverride }[] = [
    { label: 'default', override: {} },
    { label: 'legacy', override: legacy },
    { label: 'unstaged', override: { stage: 0 } },
    { label: 'rows16', override: { rt: 4 } },
  ];
  if (quick) return list;
  const more: { label: string; override: TileOverride }[] = [];
  for (const un of [1, 2, 8]) more.push({ label: `un${un}`, override: { un } });
  // Longer slices (fewer barriers) need smaller row blocks to fit the workgroup memory.
  more.push({ label: 'bk32', override: { bk: 32 } });
  more.push({ label: 'rt8-bk128', override: { rt: 8, bk: 128 } });
  more.push({ label: 'rt4-bk256', override: { rt: 4, bk: 256 } });
  for (const groups of [256, 512, 1024]) more.push({ label: `groups${groups}`, override: { groups } });
  more.push({ label: 'th128', override: { th: 128 } });
  more.push({ label: 'unstaged-un8', override: { stage: 0, un: 8 } });
  // Row blocks of 4..32 rows (more workgroups, each reading the weights again from L2), the
  // inputs split as the default would or to reach 512 workgroups, staged or not.
  for (const rt of [1, 2, 4, 8])
    for (const groups of [128, 512]) {
      more.push({ label: `rt${rt}-g${groups}`, override: { rt, groups } });
      more.push({ label: `rt${rt}-g${groups}-unstaged`, override: { rt, groups, stage: 0 } });
    }
  // Rows per thread (registers) against row threads.
  for (const [tm, rt] of [[8, 8], [8, 2], [2, 16], [2, 8], [1, 16], [1, 32]]) more.push({ label: `tm${tm}-rt${rt}`, override: { tm, rt } });
  // Small workgroups, many of them.
  for (const th of [64, 128])
    for (const rt of [1, 2, 4]) more.push({ label: `th${th}-rt${rt}`, override: { th, rt, groups: 512 } });
  // Input split forced, with the slice long enough for a few loads per thread.
  for (const ks of [1, 2, 4, 8, 16]) more.push({ label: `ks${ks}`, override: { ks, bk: Math.max(64, 4 * ks) } });
  // The LM head has columns to spare: wider or taller blocks read its 545 MiB fewer times.
  if (layerKind(shape) === 'head')
    for (const [label, override] of [['rows64', { rt: 16 }], ['rows64-th1024', { rt: 16, th: 1024 }], ['rows32-th512', { rt: 8, th: 512 }], ['th1024', { th: 1024 }], ['th64', { th: 64 }]] as const)
      more.push({ label, override });
  return [...list, ...more];
}

async function maxDiff(a: tf.Tensor, b: tf.Tensor): Promise<number> {
  const [x, y] = [await a.data(), await b.data()];
  let worst = 0;
  for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(x[i] - y[i]));
  return x.length === y.length ? worst : Infinity;
}

interface Row {
  layer: string;
  label: string;
  config: TileConfig;
  groups: number;
  gpuMs: number | null;
  wallMs: number;
  diff: number;
}

/**
 * GPU ms per run of the layer (median of timestamp queries; null where the device has none) and
 * wall ms per run. A run is the tiled kernel's dispatch, after the RMSNorm's own where a tiling
 * does not fold it in (the head unstaged): both count, as both are the step's.
 */
async function timeLayer(layer: Layer, most: number): Promise<{ gpuMs: number | null; wallMs: number }> {
  // One synced run sizes the repeats: about 100 ms of timing per tiling, 5 at least.
  const once = performance.now();
  const warm = layer.run();
  await warm.data();
  warm.dispose();
  const repeats = Math.max(5, Math.min(most, Math.round(100 / Math.max(1e-3, performance.now() - once))));
  const start = performance.now();
  const outs: tf.Tensor[] = [];
  for (let i = 0; i < repeats; i++) outs.push(layer.run());
  await outs[outs.length - 1].data();
  const wallMs = (performance.now() - start) / repeats;
  outs.forEach((t) => t.dispose());
  const info = await tf.profile(() => {
    for (let i = 0; i < repeats; i++) layer.run().dispose();
    return [];
  });
  // Each run ends with the tiled kernel: what comes before it since the last one is its norm.
  const times: number[] = [];
  let pending = 0;
  for (const k of info.kernels) {
    pending += typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0;
    if (k.name.startsWith(TILED_DECODE_LINEAR)) {
      times.push(pending);
      pending = 0;
    }
  }
  const numeric = times.filter((t) => t > 0).sort((a, b) => a - b);
  return { gpuMs: numeric.length > 0 ? numeric[Math.floor(numeric.length / 2)] : null, wallMs };
}

/** Whether the device binds the head's weight whole (llvmpipe: 128 MiB); says why not. */
function headFits(o: Options): boolean {
  if (!o.layers.includes('head')) return true;
  const limit = (tf.backend() as unknown as { device?: { limits?: { maxStorageBufferBindingSize?: number } } }).device?.limits?.maxStorageBufferBindingSize ?? 2 ** 27;
  const bytes = o.width * o.vocab * 4;
  if (bytes <= limit) return true;
  const most = Math.floor(limit / (4 * o.width));
  console.log(`head: skipped: its weight (${(bytes / 2 ** 20).toFixed(0)} MiB) exceeds this device's ${(limit / 2 ** 20).toFixed(0)} MiB storage binding (pass --vocab ${most} or less)`);
  return false;
}

const fmt = (n: number, digits = 3) => n.toFixed(digits).padStart(9);

async function sweep(o: Options): Promise<void> {
  const limits = deviceLimits();
  console.log(`limits: ${limits.sharedFloats * 4} bytes of workgroup memory, ${limits.threads} threads per workgroup; ${o.rows} rows, ${o.repeats} repeats per tiling, budget ${o.budgetS} s`);
  const layers = buildLayers(headFits(o) ? o : { ...o, layers: o.layers.filter((l) => l !== 'head') });
  const results: Row[] = [];
  const started = performance.now();
  console.log(`${'layer'.padEnd(7)} ${'tiling'.padEnd(22)} ${'config'.padEnd(52)} groups  gpu ms/disp  wall ms/disp   GFLOP/s      GB/s   max|diff|`);
  for (const [index, layer] of layers.entries()) {
    const layerDeadline = started + ((index + 1) / layers.length) * o.budgetS * 1000;
    const ref = tf.tidy(layer.reference);
    const seen = new Set<string>();
    for (const { label, override } of candidates(layer.shape, o.quick && o.only.length === 0)) {
      if (o.only.length > 0 && !o.only.includes(label)) continue;
      if (performance.now() > layerDeadline) {
        console.log(`${layer.name}: budget spent, later tilings skipped`);
        break;
      }
      let config: TileConfig;
      try {
        config = tileConfig(layer.shape, limits, override);
      } catch (error) {
        console.log(`${layer.name.padEnd(7)} ${label.padEnd(22)} skipped: ${(error as Error).message.replace(/.*: /, '').replace(/ \(set TURNLAB_DECODE_TILE.*/, '')}`);
        continue;
      }
      const key = describeTile(config);
      if (seen.has(key)) continue;
      seen.add(key);
      setTileOverride({ [layer.selector]: override });
      try {
        // The first run compiles the pipeline and is the one checked.
        const out = layer.run();
        const diff = await maxDiff(out, ref);
        out.dispose();
        const groups = Math.ceil(layer.shape.cols / (4 * config.ct)) * Math.ceil(o.rows / (config.rt * config.tm));
        if (!(diff < 1e-4)) {
          console.log(`${layer.name.padEnd(7)} ${label.padEnd(22)} ${key.padEnd(52)} WRONG: max|diff| ${diff}`);
          results.push({ layer: layer.name, label, config, groups, gpuMs: null, wallMs: Infinity, diff });
          continue;
        }
        const { gpuMs, wallMs } = await timeLayer(layer, o.repeats);
        const ms = gpuMs ?? wallMs;
        results.push({ layer: layer.name, label, config, groups, gpuMs, wallMs, diff });
        console.log(
          `${layer.name.padEnd(7)} ${label.padEnd(22)} ${key.padEnd(52)} ${String(groups).padStart(6)} ${gpuMs === null ? '        n/a' : fmt(gpuMs).padStart(11)} ${fmt(wallMs).padStart(13)} ${fmt(layer.flops / ms / 1e6, 1)} ${fmt(layer.bytes / ms / 1e6, 1)}   ${diff.toExponential(1)}`,
        );
      } catch (error) {
        console.log(`${layer.name.padEnd(7)} ${label.padEnd(22)} ${key.padEnd(52)} FAILED: ${(error as Error).message.split('\n')[0]}`);
      } finally {
        setTileOverride(null);
      }
    }
    ref.dispose();
  }
  console.log(`\nbest tiling per layer (${o.rows} rows; by GPU time where the device has timestamps, else wall time):`);
  const winners: string[] = [];
  for (const layer of layers) {
    const ok = results.filter((r) => r.layer === layer.name && r.diff < 1e-4 && Number.isFinite(r.wallMs));
    if (ok.length === 0) continue;
    const msOf = (r: Row) => r.gpuMs ?? r.wallMs;
    const best = ok.reduce((a, b) => (msOf(b) < msOf(a) ? b : a));
    const base = ok.find((r) => r.label === 'legacy');
    const dflt = ok.find((r) => r.label === 'default');
    const speedup = (r: Row | undefined) => (r ? `, ${(msOf(r) / msOf(best)).toFixed(2)}x faster than ${r.label} (${msOf(r).toFixed(3)} ms)` : '');
    console.log(`  ${layer.name.padEnd(7)} ${best.label} ${describeTile(best.config)}: ${msOf(best).toFixed(3)} ms, ${(layer.flops / msOf(best) / 1e6).toFixed(1)} GFLOP/s${speedup(base)}${speedup(dflt)}`);
    const { tm, rt, ct, ks, bk, th, un, stage } = best.config;
    winners.push(`${layer.selector}:tm=${tm},rt=${rt},ct=${ct},ks=${ks},bk=${bk},th=${th},un=${un},stage=${stage ? 1 : 0}`);
  }
  // For the step's rows only: other row counts would get the same fixed tiling.
  console.log(`DECODE_TILE="${winners.join(';')}"`);
  console.log(`sweep took ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const options = process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href ? parseArgs(process.argv.slice(2)) : null;
if (options === 'help') console.log(HELP);
else if (options) {
  const choice = await selectBackend(options.backend, (line) => console.log(line));
  console.log(`backend: ${choice.name} on ${choice.device}`);
  if (choice.name !== 'webgpu') fail(`the tiled decoding kernel runs on webgpu only (got ${choice.name}); use --backend webgpu`);
  await sweep(options);
  await releaseBackend();
}
