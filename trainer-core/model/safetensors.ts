/**
 * The safetensors file format, so weights open in Python (`safetensors.numpy.load_file`,
 * `safetensors.torch.load_file`): 8-byte little-endian header length, a JSON header naming each
 * tensor's dtype, shape and byte range, optional string `__metadata__`, then the raw
 * little-endian data. The header is padded with spaces to a multiple of 8 bytes so every tensor
 * starts aligned.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { endianness } from 'node:os';

export type SafetensorsDType = 'F32' | 'I32';

export interface NamedArray {
  shape: number[];
  data: Float32Array | Int32Array;
}

export interface SafetensorsContent {
  tensors: Record<string, NamedArray>;
  metadata: Record<string, string>;
}

interface HeaderEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

if (endianness() !== 'LE') throw new Error('safetensors I/O assumes a little-endian machine');

export function encodeSafetensors(tensors: Record<string, NamedArray>, metadata: Record<string, string> = {}): Buffer {
  const names = Object.keys(tensors).sort();
  const header: Record<string, HeaderEntry | Record<string, string>> = {};
  if (Object.keys(metadata).length > 0) {
    for (const [key, value] of Object.entries(metadata)) {
      if (typeof value !== 'string') throw new Error(`safetensors metadata "${key}" must be a string`);
    }
    header.__metadata__ = metadata;
  }
  let offset = 0;
  for (const name of names) {
    if (name === '__metadata__') throw new Error('A tensor cannot be named __metadata__');
    const { shape, data } = tensors[name];
    const size = shape.reduce((a, b) => a * b, 1);
    if (size !== data.length) throw new Error(`Tensor "${name}" has ${data.length} values but shape [${shape}] needs ${size}`);
    header[name] = { dtype: data instanceof Int32Array ? 'I32' : 'F32', shape: [...shape], data_offsets: [offset, offset + data.byteLength] };
    offset += data.byteLength;
  }
  const { out, dataStart } = allocateSafetensors(header, offset);
  let at = dataStart;
  for (const name of names) {
    const { data } = tensors[name];
    Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(out, at);
    at += data.byteLength;
  }
  return out;
}

/**
 * A buffer holding the length, the JSON header padded with spaces to a multiple of 8 bytes, and
 * room for `dataBytes` of tensor data, which the caller writes from `dataStart`.
 */
export function allocateSafetensors(header: Record<string, unknown>, dataBytes: number): { out: Buffer; dataStart: number } {
  let json = JSON.stringify(header);
  const unpadded = Buffer.byteLength(json, 'utf8');
  json += ' '.repeat((8 - ((8 + unpadded) % 8)) % 8);
  const headerBytes = Buffer.from(json, 'utf8');
  const out = Buffer.alloc(8 + headerBytes.length + dataBytes);
  out.writeBigUInt64LE(BigInt(headerBytes.length), 0);
  headerBytes.copy(out, 8);
  return { out, dataStart: 8 + headerBytes.length };
}

export function decodeSafetensors(bytes: Uint8Array, source = 'safetensors data'): SafetensorsContent {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < 8) throw new Error(`${source} is too short to be a safetensors file`);
  const headerLength = Number(buffer.readBigUInt64LE(0));
  if (8 + headerLength > buffer.length) throw new Error(`${source} is truncated: its header claims ${headerLength} bytes`);
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(buffer.subarray(8, 8 + headerLength).toString('utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`${source} has an unreadable header: ${(error as Error).message}`);
  }
  const dataStart = 8 + headerLength;
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw new Error(`${source} has an unreadable header: not a JSON object`);
  // A file cut short (a copy or download that stopped) says so, rather than blaming one tensor.
  const needed = Object.entries(header).reduce((most, [name, value]) => {
    const end = name === '__metadata__' ? 0 : (value as Partial<HeaderEntry> | null)?.data_offsets?.[1];
    return Number.isSafeInteger(end) ? Math.max(most, end as number) : most;
  }, 0);
  if (dataStart + needed > buffer.length) throw new Error(`${source} is truncated: its tensors need ${dataStart + needed} bytes but it has ${buffer.length}`);
  const tensors: Record<string, NamedArray> = {};
  let metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = (value ?? {}) as Record<string, string>;
      continue;
    }
    const entry = value as HeaderEntry;
    if (entry === null || typeof entry !== 'object' || !Array.isArray(entry.shape)) throw new Error(`${source}: tensor "${name}" has a malformed header entry`);
    const [begin, end] = entry.data_offsets ?? [];
    if (!Number.isInteger(begin) || !Number.isInteger(end) || end < begin || dataStart + end > buffer.length) {
      throw new Error(`${source}: tensor "${name}" has bad data_offsets`);
    }
    // Copy out: the data may sit at an offset a typed array view cannot start at.
    const raw = buffer.subarray(dataStart + begin, dataStart + end);
    const copy = new ArrayBuffer(raw.length);
    new Uint8Array(copy).set(raw);
    let data: Float32Array | Int32Array;
    if (entry.dtype === 'F32') data = new Float32Array(copy);
    else if (entry.dtype === 'I32') data = new Int32Array(copy);
    else throw new Error(`${source}: tensor "${name}" is ${entry.dtype}; TurnLab reads F32 and I32 only (convert with .float())`);
    const size = entry.shape.reduce((a, b) => a * b, 1);
    if (size !== data.length) throw new Error(`${source}: tensor "${name}" has ${data.length} values for shape [${entry.shape}]`);
    tensors[name] = { shape: [...entry.shape], data };
  }
  return { tensors, metadata };
}

/** Writes through a temporary file and a rename, so a crash never leaves half a checkpoint. */
export async function writeSafetensorsFile(path: string, tensors: Record<string, NamedArray>, metadata: Record<string, string> = {}): Promise<void> {
  const temporary = `${path}.tmp-${process.pid}`;
  await writeFile(temporary, encodeSafetensors(tensors, metadata));
  await rename(temporary, path);
}

export async function readSafetensorsFile(path: string): Promise<SafetensorsContent> {
  return decodeSafetensors(await readFile(path), path);
}
