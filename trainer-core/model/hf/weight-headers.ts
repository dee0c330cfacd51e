/**
 * Checks a model folder's weights against its config.json from the safetensors headers alone
 * (a few kilobytes, not the gigabytes behind them), so a folder whose config does not belong to
 * its weights, or whose weight file was cut short by a download, is refused with a line naming
 * the file and the key before any run exists or any weight is loaded.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HfModelError, type HfDecoderConfig } from './config';
import { noWeightsError } from './folder-kind';
import { expectedShapes } from './decoder';

interface HeaderEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

/** Header lengths past this are not a safetensors file (the format's own readers cap it at 100 MB). */
const MAX_HEADER_BYTES = 100_000_000;

function readAt(fd: number, length: number, position: number): Buffer {
  const buffer = Buffer.alloc(length);
  const read = readSync(fd, buffer, 0, length, position);
  return buffer.subarray(0, read);
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * The tensors a safetensors file declares, each checked for a well-formed entry, and the whole
 * file for holding every byte its header promises ("truncated" when it does not).
 */
export function readSafetensorsHeader(path: string): Record<string, HeaderEntry> {
  const size = statSync(path).size;
  const fd = openSync(path, 'r');
  try {
    if (size < 8) throw new HfModelError(`${path} is too short to be a safetensors file (${size} bytes)`);
    const length = Number(readAt(fd, 8, 0).readBigUInt64LE(0));
    if (length > MAX_HEADER_BYTES) throw new HfModelError(`${path} is not a safetensors file: its header length reads ${length} bytes`);
    if (8 + length > size) throw new HfModelError(`${path} is truncated: its header needs ${8 + length} bytes but the file has ${size}; copy or download it again`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readAt(fd, length, 8).toString('utf8'));
    } catch (error) {
      throw new HfModelError(`${path} is not a safetensors file: its header is not JSON (${(error as Error).message})`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new HfModelError(`${path} is not a safetensors file: its header is not a JSON object`);
    const header: Record<string, HeaderEntry> = {};
    let end = 0;
    for (const [name, value] of Object.entries(parsed as Record<string, unknown>)) {
      if (name === '__metadata__') continue;
      const entry = value as Partial<HeaderEntry> | null;
      const offsets = entry?.data_offsets;
      if (
        typeof entry?.dtype !== 'string' ||
        !Array.isArray(entry.shape) ||
        !entry.shape.every(isCount) ||
        !Array.isArray(offsets) ||
        offsets.length !== 2 ||
        !offsets.every(isCount) ||
        offsets[1] < offsets[0]
      ) {
        throw new HfModelError(`${path}: tensor "${name}" has a malformed header entry (dtype, shape and data_offsets)`);
      }
      header[name] = entry as HeaderEntry;
      end = Math.max(end, offsets[1]);
    }
    if (8 + length + end > size) {
      throw new HfModelError(`${path} is truncated: its tensors need ${8 + length + end} bytes but the file has ${size}; copy or download it again`);
    }
    return header;
  } finally {
    closeSync(fd);
  }
}

/** Every tensor's shape in a model folder, from one file or the shards its index names. */
function declaredTensors(dir: string): Map<string, { shape: number[]; dtype: string; file: string }> {
  const single = join(dir, 'model.safetensors');
  const index = join(dir, 'model.safetensors.index.json');
  const files: string[] = [];
  if (existsSync(single)) files.push(single);
  else if (existsSync(index)) {
    let weightMap: unknown;
    try {
      weightMap = (JSON.parse(readFileSync(index, 'utf8')) as { weight_map?: unknown } | null)?.weight_map;
    } catch (error) {
      throw new HfModelError(`${index} is not JSON (${(error as Error).message})`);
    }
    if (!weightMap || typeof weightMap !== 'object') throw new HfModelError(`${index} has no weight_map`);
    for (const file of new Set(Object.values(weightMap as Record<string, unknown>))) {
      if (typeof file !== 'string') throw new HfModelError(`${index}: weight_map names a file that is not a string`);
      if (!existsSync(join(dir, file))) throw new HfModelError(`${index} names ${file}, which is not in ${dir}`);
      files.push(join(dir, file));
    }
  } else {
    throw noWeightsError(dir);
  }
  const tensors = new Map<string, { shape: number[]; dtype: string; file: string }>();
  for (const file of files) {
    for (const [name, entry] of Object.entries(readSafetensorsHeader(file))) tensors.set(name, { shape: entry.shape, dtype: entry.dtype, file });
  }
  return tensors;
}

/** config.json's top-level numbers that equal `value`: the keys a mismatched dimension points at. */
function keysWithValue(configJson: Record<string, unknown>, value: number): string[] {
  return Object.entries(configJson)
    .filter(([, v]) => v === value)
    .map(([k]) => k);
}

/** The dtypes a model folder's weights are stored in (one file's or every shard's headers). */
export function storedDtypes(dir: string): Set<string> {
  return new Set([...declaredTensors(dir).values()].map((tensor) => tensor.dtype));
}

/** How many decoder layers the weights hold: one past the highest `model.layers.<i>.` index. */
function storedLayers(tensors: ReadonlyMap<string, unknown>): number {
  let layers = 0;
  for (const name of tensors.keys()) {
    const index = /^model\.layers\.(\d+)\./.exec(name)?.[1];
    if (index !== undefined) layers = Math.max(layers, Number(index) + 1);
  }
  return layers;
}

/**
 * Refuses a folder whose weights lack a tensor its config needs, hold one of another shape, or
 * are cut short. The line names config.json's key where one dimension gives it away.
 */
export function checkHfWeights(dir: string, config: HfDecoderConfig, configJson: Record<string, unknown>): void {
  const shapes = declaredTensors(dir);
  const configPath = join(dir, 'config.json');
  // Counted first: the tensor names of num_hidden_layers 1e12 layers ran the process out of memory.
  const layers = storedLayers(shapes);
  if (config.nLayers > layers) {
    throw new HfModelError(`${configPath}: num_hidden_layers is ${config.nLayers} but the weights hold ${layers} layer${layers === 1 ? '' : 's'}; use the config.json that came with the weights`);
  }
  for (const [name, needed] of expectedShapes(config)) {
    const found = shapes.get(name);
    if (!found) throw new HfModelError(`${dir}: the weights lack "${name}", which ${configPath} (${config.architecture}) needs; is this the config of these weights?`);
    if (found.shape.join(',') === needed.join(',')) continue;
    const dim = needed.findIndex((n, i) => found.shape[i] !== n);
    const keys = dim >= 0 && found.shape.length === needed.length ? keysWithValue(configJson, needed[dim]) : [];
    const blame = keys.length ? `${keys.join(' / ')} is ${needed[dim]} in ${configPath} but the weights have ${found.shape[dim]}` : `${configPath} does not describe these weights`;
    throw new HfModelError(
      `${found.file}: tensor "${name}" has shape [${found.shape}], the config needs [${needed}]: ${blame}; use the config.json that came with the weights`,
    );
  }
}
