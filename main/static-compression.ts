// Compressed static files for `turnlab serve`: the renderer's scripts and styles travel brotli-
// or gzip-compressed when the browser accepts it (a quarter of their size or less). Each file is
// compressed once per version on disk and kept, since the built renderer changes only on a rebuild.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export type ContentEncoding = 'br' | 'gzip';

const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.svg', '.map']);

/** The encoding to send for an Accept-Encoding header, or null for none; brotli before gzip. */
export function chooseEncoding(acceptEncoding: string | undefined, extension: string): ContentEncoding | null {
  if (!COMPRESSIBLE.has(extension)) return null;
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find((m) => m !== null);
    accepted.set(name, q ? Number(q[1]) : 1);
  }
  const weight = (name: string) => accepted.get(name) ?? (accepted.has('*') ? accepted.get('*')! : 0);
  if (weight('br') > 0) return 'br';
  if (weight('gzip') > 0) return 'gzip';
  return null;
}

export function compress(body: Buffer, encoding: ContentEncoding): Buffer {
  return encoding === 'br'
    ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
    : gzipSync(body, { level: 9 });
}

/** Compressed copies keyed by path, encoding and the file's mtime and size. */
export class CompressedFiles {
  private readonly cache = new Map<string, Buffer>();

  get(path: string, version: string, encoding: ContentEncoding, read: () => Promise<Buffer>): Promise<Buffer> {
    const key = `${encoding}\n${version}\n${path}`;
    const hit = this.cache.get(key);
    if (hit) return Promise.resolve(hit);
    return read().then((body) => {
      const packed = compress(body, encoding);
      for (const old of this.cache.keys()) if (old.endsWith(`\n${path}`) && old.startsWith(`${encoding}\n`)) this.cache.delete(old);
      this.cache.set(key, packed);
      return packed;
    });
  }
}
