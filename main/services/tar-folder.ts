import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';

/**
 * A folder as a POSIX ustar archive, streamed: what the browser downloads when it exports a
 * checkpoint's model folder. Regular files and folders only (checkpoints hold nothing else).
 */

const BLOCK = 512;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

/** Splits a path over ustar's name (100) and prefix (155) fields at a slash. */
function splitName(path: string): { name: string; prefix: string } {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: '' };
  for (let cut = path.indexOf('/'); cut !== -1; cut = path.indexOf('/', cut + 1)) {
    const prefix = path.slice(0, cut);
    const name = path.slice(cut + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { name, prefix };
  }
  throw new Error(`path too long for a tar archive: ${path}`);
}

export function tarHeader(path: string, entry: { size: number; mtimeMs: number; directory: boolean }): Buffer {
  const header = Buffer.alloc(BLOCK, 0);
  const { name, prefix } = splitName(entry.directory ? `${path}/` : path);
  header.write(name, 0, 100, 'utf8');
  header.write(octal(entry.directory ? 0o755 : 0o644, 8), 100, 'ascii');
  header.write(octal(0, 8), 108, 'ascii');
  header.write(octal(0, 8), 116, 'ascii');
  header.write(octal(entry.directory ? 0 : entry.size, 12), 124, 'ascii');
  header.write(octal(Math.floor(entry.mtimeMs / 1000), 12), 136, 'ascii');
  header.write(' '.repeat(8), 148, 'ascii');
  header.write(entry.directory ? '5' : '0', 156, 'ascii');
  header.write('ustar\u000000', 257, 'ascii');
  header.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return header;
}

async function* entries(root: string, relativeDir: string): AsyncGenerator<{ path: string; abs: string; directory: boolean }> {
  const names = (await readdir(join(root, relativeDir), { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const dirent of names) {
    const path = relativeDir ? posix.join(relativeDir, dirent.name) : dirent.name;
    const abs = join(root, path);
    if (dirent.isDirectory()) {
      yield { path, abs, directory: true };
      yield* entries(root, path);
    } else if (dirent.isFile()) {
      yield { path, abs, directory: false };
    }
  }
}

/** The archive's bytes; entries are named `<top>/<path inside the folder>`. */
export async function* tarFolder(folder: string, top: string): AsyncGenerator<Buffer> {
  const topInfo = await stat(folder);
  yield tarHeader(top, { size: 0, mtimeMs: topInfo.mtimeMs, directory: true });
  for await (const entry of entries(folder, '')) {
    const info = await stat(entry.abs);
    yield tarHeader(posix.join(top, entry.path), { size: info.size, mtimeMs: info.mtimeMs, directory: entry.directory });
    if (entry.directory) continue;
    let written = 0;
    for await (const chunk of createReadStream(entry.abs)) {
      written += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
    if (written !== info.size) throw new Error(`${entry.abs} changed while it was archived`);
    const pad = (BLOCK - (info.size % BLOCK)) % BLOCK;
    if (pad) yield Buffer.alloc(pad, 0);
  }
  yield Buffer.alloc(BLOCK * 2, 0);
}
