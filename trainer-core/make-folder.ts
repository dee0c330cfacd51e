/**
 * `mkdir -p` for folders a user names (a data folder, an export's --out). Node's recursive mkdir
 * spins forever under /proc (every mkdir there answers ENOENT, so it keeps retrying the parent)
 * and its errors name neither the folder that could not be made nor why; this one makes one
 * level at a time and says both.
 */
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const REASONS: Record<string, string> = {
  EACCES: 'this user may not create folders in it',
  EPERM: 'the system does not allow new folders in it',
  EROFS: 'it is on a read-only file system',
  ENOSPC: 'its disk is full',
  EDQUOT: 'its disk quota is used up',
  ENOTDIR: 'it is a file, not a folder',
  // /proc and similar pseudo file systems answer ENOENT to every mkdir.
  ENOENT: 'its file system does not accept new folders',
};

/** A folder that could not be made; the message reads "<parent>: <why> (<code>)". */
export class FolderError extends Error {
  constructor(
    readonly parent: string,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'FolderError';
  }
}

/** Makes `path` and every missing folder above it. */
export function makeFolder(path: string): void {
  const missing: string[] = [];
  let dir = resolve(path);
  while (!existsSync(dir) && dirname(dir) !== dir) {
    missing.unshift(dir);
    dir = dirname(dir);
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      if (code === 'EEXIST' && statSync(folder).isDirectory()) continue;
      const parent = dirname(folder);
      throw new FolderError(parent, code, `${parent}: ${REASONS[code] ?? (error as Error).message} (${code})`);
    }
  }
}

/**
 * Why `path` cannot be the new folder an export writes, or null: a file there (an export once
 * read it as a folder and failed with ENOTDIR) or a folder that already holds something.
 */
export function notANewFolder(path: string): string | null {
  if (!existsSync(path)) return null;
  if (!statSync(path).isDirectory()) return `${path} is a file, not a folder`;
  return readdirSync(path).length > 0 ? `${path} exists and is not empty` : null;
}
