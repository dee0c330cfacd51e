import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';

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
  for (const name of Object.keys(files)) {
    if (name === MANIFEST_FILE || name.includes('/') || name.includes('\\')) {
      throw new CheckpointError(`invalid checkpoint file name '${name}'`);
    }
  }
  const tmp = join(dirname(dir), `.${basename(dir)}.partial`);
  try {
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    const manifest: CheckpointManifest = { format: 'turnlab-checkpoint', version: 1, createdAt: new Date().toISOString(), files: {} };
    let sizeBytes = 0;
    for (const [name, data] of Object.entries(files)) {
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
  } catch (error) {
    // A full disk or an unwritable folder: leave no half-written `.partial` folder behind, and
    // say which folder failed and why instead of a bare errno.
    try {
      rmSync(tmp, { recursive: true, force: true });
    } catch {
      // The parent is not a folder (ENOTDIR) or cannot be listed: nothing was created there.
    }
    throw new CheckpointError(`cannot write checkpoint to ${dir}: ${describeFsError(error)}`);
  }
}

const FS_ERRORS: Record<string, string> = {
  ENOSPC: 'disk full',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is a file, not a folder',
  ENOENT: 'a folder on the path does not exist',
  EIO: 'input/output error',
};

/** `disk full (ENOSPC)` for a Node file-system error; its message for anything else. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const path = (error as NodeJS.ErrnoException | undefined)?.path;
  if (code === 'ENOTDIR' && path) {
    const file = firstFileOnPath(path);
    if (file) return `${file} is a file, not a folder (ENOTDIR)`;
  }
  if (code && FS_ERRORS[code]) return `${FS_ERRORS[code]} (${code})`;
  return error instanceof Error ? error.message : String(error);
}

/** The first ancestor of `path` (or `path` itself) that exists and is not a folder. */
function firstFileOnPath(path: string): string | null {
  const chain: string[] = [];
  for (let p = path; dirname(p) !== p; p = dirname(p)) chain.unshift(p);
  for (const p of chain) {
    try {
      if (!statSync(p).isDirectory()) return p;
    } catch {
      return null;
    }
  }
  return null;
}

const manifestSchema = z.object({
  format: z.literal('turnlab-checkpoint'),
  version: z.literal(1),
  createdAt: z.string(),
  files: z.record(z.string(), z.object({ size: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) })),
});

/** Reads and verifies every file of a checkpoint; throws a CheckpointError naming what is wrong. */
export function readCheckpointFiles(dir: string): Record<string, Buffer> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new CheckpointError(`checkpoint folder not found: ${dir}`);
  }
  const manifestPath = join(dir, MANIFEST_FILE);
  if (!existsSync(manifestPath)) throw new CheckpointError(`checkpoint ${dir} has no ${MANIFEST_FILE}: it is incomplete`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch {
    throw new CheckpointError(`checkpoint ${dir}: ${MANIFEST_FILE} is not valid JSON (truncated or altered)`);
  }
  if ((raw as { format?: unknown } | null)?.format !== 'turnlab-checkpoint') throw new CheckpointError(`${dir} is not a TurnLab checkpoint`);
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CheckpointError(`checkpoint ${dir}: ${MANIFEST_FILE} is altered: field \`${issue.path.join('.')}\` ${issue.message}`);
  }
  const manifest = parsed.data;
  const out: Record<string, Buffer> = {};
  for (const [name, entry] of Object.entries(manifest.files)) {
    const path = join(dir, name);
    if (!existsSync(path)) throw new CheckpointError(`checkpoint ${dir}: file ${name} is missing`);
    const bytes = readFileSync(path);
    // Shorter than recorded is an interrupted copy or write; anything else that differs was changed.
    if (bytes.byteLength < entry.size) {
      throw new CheckpointError(`checkpoint ${dir}: ${name} is truncated (${bytes.byteLength} bytes, expected ${entry.size})`);
    }
    if (bytes.byteLength > entry.size) {
      throw new CheckpointError(`checkpoint ${dir}: ${name} is altered (${bytes.byteLength} bytes, the manifest says ${entry.size})`);
    }
    if (sha256(bytes) !== entry.sha256) {
      throw new CheckpointError(`checkpoint ${dir}: ${name} is altered (same size, but its sha256 differs from the manifest)`);
    }
    out[name] = bytes;
  }
  const extra = readdirSync(dir).filter((f) => f !== MANIFEST_FILE && !(f in manifest.files));
  if (extra.length > 0) throw new CheckpointError(`checkpoint ${dir}: unexpected files ${extra.join(', ')}`);
  return out;
}
