import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * A checkpoint is a folder of files plus `manifest.json` listing each file's size and sha256.
 * The folder is written under a temporary name and renamed at the end, so a crash mid-save
 * never leaves a half-written checkpoint under the real name; the manifest lets a load tell a
 * truncated or altered file from a good one.
 */
export interface ManifestEntry {
  size: number;
  sha256: string;
}

export interface CheckpointManifest {
  format: 'turnlab-checkpoint';
  version: 1;
  createdAt: string;
  files: Record<string, ManifestEntry>;
}

export class CheckpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointError';
  }
}

export const MANIFEST_FILE = 'manifest.json';

export function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Writes `files` into `dir` atomically; returns the total size in bytes and the manifest's sha256. */
export function writeCheckpointFiles(
  dir: string,
  files: Record<string, Uint8Array | string>,
): { sizeBytes: number; manifestSha256: string } {
  const tmp = join(dirname(dir), `.${basename(dir)}.partial`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const manifest: CheckpointManifest = { format: 'turnlab-checkpoint', version: 1, createdAt: new Date().toISOString(), files: {} };
  let sizeBytes = 0;
  for (const [name, data] of Object.entries(files)) {
    if (name === MANIFEST_FILE || name.includes('/') || name.includes('\\')) {
      throw new CheckpointError(`invalid checkpoint file name '${name}'`);
    }
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    writeFileSync(join(tmp, name), bytes);
    manifest.files[name] = { size: bytes.byteLength, sha256: sha256(bytes) };
    sizeBytes += bytes.byteLength;
  }
  const manifestText = JSON.stringify(manifest, null, 2);
  writeFileSync(join(tmp, MANIFEST_FILE), manifestText);
  sizeBytes += Buffer.byteLength(manifestText);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return { sizeBytes, manifestSha256: sha256(manifestText) };
}

/** Reads and verifies every file of a checkpoint; throws a CheckpointError naming what is wrong. */
export function readCheckpointFiles(dir: string): Record<string, Buffer> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new CheckpointError(`checkpoint folder not found: ${dir}`);
  }
  const manifestPath = join(dir, MANIFEST_FILE);
  if (!existsSync(manifestPath)) throw new CheckpointError(`checkpoint ${dir} has no ${MANIFEST_FILE}: it is incomplete`);
  let manifest: CheckpointManifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as CheckpointManifest;
  } catch {
    throw new CheckpointError(`checkpoint ${dir}: ${MANIFEST_FILE} is not valid JSON (truncated?)`);
  }
  if (manifest.format !== 'turnlab-checkpoint') throw new CheckpointError(`${dir} is not a TurnLab checkpoint`);
  const out: Record<string, Buffer> = {};
  for (const [name, entry] of Object.entries(manifest.files)) {
    const path = join(dir, name);
    if (!existsSync(path)) throw new CheckpointError(`checkpoint ${dir}: file ${name} is missing`);
    const bytes = readFileSync(path);
    if (bytes.byteLength !== entry.size) {
      throw new CheckpointError(
        `checkpoint ${dir}: ${name} is truncated (${bytes.byteLength} bytes, expected ${entry.size})`,
      );
    }
    if (sha256(bytes) !== entry.sha256) throw new CheckpointError(`checkpoint ${dir}: ${name} has a wrong checksum`);
    out[name] = bytes;
  }
  const extra = readdirSync(dir).filter((f) => f !== MANIFEST_FILE && !(f in manifest.files));
  if (extra.length > 0) throw new CheckpointError(`checkpoint ${dir}: unexpected files ${extra.join(', ')}`);
  return out;
}
