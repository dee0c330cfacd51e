import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { EnvConfigError } from './errors';

// Many env instances of one run read the same file; parse it once per process and version.
const cache = new Map<string, { mtimeMs: number; rows: unknown[] }>();

/** The JSON objects of a JSON Lines file (blank lines skipped), with errors naming file and line. */
export function readJsonl(path: string, label: string): unknown[] {
  const absolute = resolve(path);
  let mtimeMs: number;
  try {
    mtimeMs = statSync(absolute).mtimeMs;
  } catch {
    throw new EnvConfigError(`${label}: data file not found: ${absolute}`);
  }
  const cached = cache.get(absolute);
  if (cached && cached.mtimeMs === mtimeMs) return cached.rows;
  const rows: unknown[] = [];
  readFileSync(absolute, 'utf8')
    .split(/\r?\n/)
    .forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        rows.push(JSON.parse(line));
      } catch (error) {
        throw new EnvConfigError(`${label}: ${absolute} line ${i + 1} is not valid JSON (${(error as Error).message})`);
      }
    });
  cache.set(absolute, { mtimeMs, rows });
  return rows;
}
