/**
 * `npm run bench`: runs every benchmark module of this folder in file-name order. A benchmark
 * module's default export is an async function given the words after its name, and prints its
 * own report; its `USAGE` says what it measures and takes. `npm run bench -- envs model` runs only
 * the named ones, `npm run bench -- --list` lists them, `npm run bench -- llm --help` shows one's
 * usage; run one alone with `npx tsx bench/<name>.ts`.
 */
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isUserError } from './lib/bench-errors';
import { BENCH_TOOLS, benchmarkCalls, HELP, type BenchCall } from './lib/benchmark-names';

interface BenchModule {
  default?: (args: string[]) => Promise<void> | void;
  USAGE?: string;
}

const folder = dirname(fileURLToPath(import.meta.url));
const names = readdirSync(folder)
  .filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts') && n !== 'index.ts')
  .map((n) => n.replace(/\.ts$/, ''))
  .filter((n) => !(BENCH_TOOLS as readonly string[]).includes(n))
  .sort();

const load = async (name: string) => (await import(pathToFileURL(`${folder}/${name}.ts`).href)) as BenchModule;
const usageOf = (name: string, module: BenchModule) => module.USAGE ?? `npm run bench -- ${name}: takes no arguments`;

async function list(): Promise<void> {
  const lines = ['npm run bench [-- <benchmark> [its arguments] ...]: every benchmark when none is named.', ''];
  for (const name of names) {
    const summary = usageOf(name, await load(name)).split('\n')[0].replace(new RegExp(`^(npm run bench -- )?${name}: `), '');
    lines.push(`  ${name.padEnd(13)} ${summary}`);
  }
  lines.push('', `npm run bench -- <benchmark> --help: what one takes. Tools, run alone: ${BENCH_TOOLS.map((t) => `npx tsx bench/${t}.ts`).join(', ')}.`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The benchmark under way, which a refusal of its arguments is said to come from. */
let running: string | null = null;

async function run(calls: BenchCall[]): Promise<void> {
  for (const { name, args } of calls) {
    const module = await load(name);
    if (args.some((a) => HELP.includes(a))) {
      process.stdout.write(`${usageOf(name, module)}\n`);
      continue;
    }
    process.stdout.write(`\n== ${name} ==\n`);
    if (typeof module.default !== 'function') {
      process.stderr.write(`bench/${name}.ts has no default export function; skipped\n`);
      continue;
    }
    running = name;
    await module.default(args);
    running = null;
  }
}

const words = process.argv.slice(2);
try {
  if (words.length > 0 && HELP.includes(words[0])) await list();
  else await run(benchmarkCalls(words, new Set(names)).concat(words.length === 0 ? names.map((name) => ({ name, args: [] })) : []));
} catch (error) {
  if (!isUserError(error)) throw error;
  // Messages that name their bench already (`bench llm: ...`) are not named twice.
  const named = running !== null && !error.message.startsWith(`bench ${running}:`) ? `bench ${running}` : 'bench';
  process.stderr.write(`${named === 'bench' && error.message.startsWith('bench ') ? '' : `${named}: `}${error.message}\n`);
  process.exit(2);
}
