/**
 * Hugging Face weight files: `model.safetensors`, or shards listed in
 * `model.safetensors.index.json`, with tensors in F32, BF16 or F16 (real Qwen2.5 checkpoints
 * are BF16). A model's weights are read as stored, 16-bit ones as their bit patterns: the
 * decoder keeps frozen matrices 16-bit where the backend has the products (model/half-ops.ts)
 * and widens the rest to float32, exactly (BF16 is the upper half of a float32). Writing (tiny
 * test folders, exports) supports F32 and BF16.
 */
import { existsSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { widenHalves, type HalfFormat } from '../half-matrix';
import { allocateSafetensors } from '../safetensors';
import { HfModelError } from './config';
import { noWeightsError } from './folder-kind';

export type HfDType = 'F32' | 'BF16' | 'F16';

export interface HfTensor {
  shape: number[];
  data: Float32Array;
}

/** A tensor stored 16-bit, not widened: its bit patterns. */
export interface HfHalfTensor {
  shape: number[];
  halves: Uint16Array;
  format: HalfFormat;
}

export type HfStoredTensor = HfTensor | HfHalfTensor;

export function isHalfTensor(t: HfStoredTensor): t is HfHalfTensor {
  return 'halves' in t;
}

/** The tensor as float32 (exact). */
export function widenTensor(t: HfStoredTensor): HfTensor {
  return isHalfTensor(t) ? { shape: t.shape, data: widenHalves(t.halves, t.format) } : t;
}

interface HeaderEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

function parseHeader(buffer: Buffer, source: string): { header: Record<string, HeaderEntry>; dataStart: number } {
  if (buffer.length < 8) throw new HfModelError(`${source} is too short to be a safetensors file`);
  const length = Number(buffer.readBigUInt64LE(0));
  if (8 + length > buffer.length) throw new HfModelError(`${source} is truncated: its header claims ${length} bytes`);
  const header = JSON.parse(buffer.subarray(8, 8 + length).toString('utf8')) as Record<string, HeaderEntry>;
  delete (header as Record<string, unknown>).__metadata__;
  return { header, dataStart: 8 + length };
}

/** The tensor's data as stored: float32, or 16-bit patterns. */
function stored(raw: Buffer, dtype: string, source: string, name: string): Float32Array | HfHalfTensor['halves'] {
  // Copied into a fresh buffer first: the tensor may start at an offset a typed view cannot.
  const copy = new Uint8Array(raw.length);
  copy.set(raw);
  if (dtype === 'F32') return new Float32Array(copy.buffer);
  if (dtype !== 'BF16' && dtype !== 'F16') throw new HfModelError(`${source}: tensor "${name}" is ${dtype}; TurnLab reads F32, BF16 and F16`);
  return new Uint16Array(copy.buffer);
}

/** Reads the named tensors (all when `names` is omitted) of one safetensors file as float32. */
export async function readHfSafetensors(path: string, names?: ReadonlySet<string>): Promise<Record<string, HfTensor>> {
  const tensors = await readStoredSafetensors(path, names);
  return Object.fromEntries(Object.entries(tensors).map(([name, t]) => [name, widenTensor(t)]));
}

/** Reads the named tensors of one safetensors file as stored (16-bit ones not widened). */
async function readStoredSafetensors(path: string, names?: ReadonlySet<string>): Promise<Record<string, HfStoredTensor>> {
  const buffer = await readFile(path);
  const { header, dataStart } = parseHeader(buffer, path);
  const out: Record<string, HfStoredTensor> = {};
  for (const [name, entry] of Object.entries(header)) {
    if (names && !names.has(name)) continue;
    const [begin, end] = entry.data_offsets;
    if (!(end >= begin) || dataStart + end > buffer.length) throw new HfModelError(`${path}: tensor "${name}" has bad data_offsets`);
    const data = stored(buffer.subarray(dataStart + begin, dataStart + end), entry.dtype, path, name);
    const size = entry.shape.reduce((a, b) => a * b, 1);
    if (size !== data.length) throw new HfModelError(`${path}: tensor "${name}" has ${data.length} values for shape [${entry.shape}]`);
    out[name] = data instanceof Float32Array ? { shape: [...entry.shape], data } : { shape: [...entry.shape], halves: data, format: entry.dtype as HalfFormat };
  }
  return out;
}

/** Every tensor of a model folder, as stored, from one file or from the shards its index names. */
export async function readHfWeights(dir: string): Promise<Record<string, HfStoredTensor>> {
  const single = join(dir, 'model.safetensors');
  const index = join(dir, 'model.safetensors.index.json');
  if (existsSync(single)) return readStoredSafetensors(single);
  if (!existsSync(index)) throw noWeightsError(dir);
  const weightMap = (JSON.parse(await readFile(index, 'utf8')) as { weight_map?: Record<string, string> }).weight_map;
  if (!weightMap) throw new HfModelError(`${index} has no weight_map`);
  const byFile = new Map<string, Set<string>>();
  for (const [name, file] of Object.entries(weightMap)) {
    if (!byFile.has(file)) byFile.set(file, new Set());
    byFile.get(file)!.add(name);
  }
  const out: Record<string, HfStoredTensor> = {};
  for (const [file, names] of byFile) {
    const tensors = await readStoredSafetensors(join(dir, file), names);
    for (const name of names) {
      if (!tensors[name]) throw new HfModelError(`${index} places "${name}" in ${file}, which lacks it`);
      out[name] = tensors[name];
    }
  }
  return out;
}

/** float32 to bfloat16 bits, rounding to nearest even (as torch's .to(torch.bfloat16)). */
export function toBf16Bits(value: number): number {
  return bf16RoundBits(new Uint32Array(new Float32Array([value]).buffer)[0]);
}

/** A float32's bit pattern to bfloat16's, rounding to nearest even. */
export function bf16RoundBits(bits: number): number {
  if ((bits & 0x7f800000) === 0x7f800000 && bits & 0x7fffff) return (bits >>> 16) | 0x40; // keep NaN a NaN
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}

/** Encodes tensors (sorted by name) as one safetensors file in `dtype`. */
export function encodeHfSafetensors(tensors: Record<string, HfTensor>, dtype: 'F32' | 'BF16', metadata: Record<string, string> = { format: 'pt' }): Buffer {
  const names = Object.keys(tensors).sort();
  const width = dtype === 'F32' ? 4 : 2;
  const header: Record<string, unknown> = { __metadata__: metadata };
  let offset = 0;
  for (const name of names) {
    const { shape, data } = tensors[name];
    if (shape.reduce((a, b) => a * b, 1) !== data.length) throw new HfModelError(`Tensor "${name}" has ${data.length} values but shape [${shape}]`);
    header[name] = { dtype, shape, data_offsets: [offset, offset + data.length * width] };
    offset += data.length * width;
  }
  const { out, dataStart } = allocateSafetensors(header, offset);
  let at = dataStart;
  for (const name of names) {
    const { data } = tensors[name];
    if (dtype === 'F32') {
      Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(out, at);
      at += data.byteLength;
    } else {
      const bits = new Uint32Array(data.buffer, data.byteOffset, data.length);
      const halves = new Uint16Array(data.length);
      for (let i = 0; i < data.length; i++) halves[i] = bf16RoundBits(bits[i]);
      Buffer.from(halves.buffer).copy(out, at);
      at += halves.byteLength;
    }
  }
  return out;
}

export async function writeHfSafetensors(path: string, tensors: Record<string, HfTensor>, dtype: 'F32' | 'BF16', metadata?: Record<string, string>): Promise<void> {
  const temporary = `${path}.tmp-${process.pid}`;
  await writeFile(temporary, encodeHfSafetensors(tensors, dtype, metadata));
  await rename(temporary, path);
}
