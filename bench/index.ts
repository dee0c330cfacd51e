/**
 * `npm run bench`: runs every benchmark module of this folder in file-name order. A benchmark
 * module's default export is an async function that prints its own report; run one alone with
 * `npx tsx bench/<name>.ts`. `npm run bench -- envs model` runs only the named ones.
 */
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isUserError } from './lib/bench-errors';
import { benchmarksNamed } from './lib/benchmark-names';

const folder = dirname(fileURLToPath(import.meta.url));
/** Tools run on their own with `npx tsx bench/<name>.ts`, not benchmarks. */
const TOOLS = new Set(['big-store.ts', 'decode-host-time.ts', 'decode-linear-sweep.ts']);
const names = new Set(readdirSync(folder).filter((n) => n.endsWith('.ts') && n !== 'index.ts' && !TOOLS.has(n)).map((n) => n.replace(/\.ts$/, '')));
const only = benchmarksNamed(process.argv.slice(2), names);
const modules = readdirSync(folder)
  .filter((name) => /\.ts$/.test(name) && name !== 'index.ts' && !name.endsWith('.d.ts') && !TOOLS.has(name))
  .sort()
  .filter((name) => only.length === 0 || only.includes(name.replace(/\.ts$/, '')));

if (only.length > 0 && modules.length < only.length) {
  process.stderr.write(`unknown benchmark among: ${only.join(', ')}; available: ${readdirSync(folder).filter((n) => n !== 'index.ts' && n.endsWith('.ts')).map((n) => n.replace(/\.ts$/, '')).join(', ')}\n`);
  process.exit(2);
}

for (const name of modules) {
  process.stdout.write(`\n== ${name.replace(/\.ts$/, '')} ==\n`);
  const module = (await import(pathToFileURL(`${folder}/${name}`).href)) as { default?: () => Promise<void> | void };
  if (typeof module.default !== 'function') {
    process.stderr.write(`bench/${name} has no default export function; skipped\n`);
    continue;
  }
  try {
    await module.default();
  } catch (error) {
    if (!isUserError(error)) throw error;
    process.stderr.write(`bench ${name.replace(/\.ts$/, '')}: ${error.message}\n`);
    process.exit(2);
  }
}
