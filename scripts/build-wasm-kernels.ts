/**
 * Assembles TurnLab's own WebAssembly kernels (trainer-core/model/wasm-kernels/*.wat) with wabt
 * and writes each binary into a TypeScript module beside its source, so the trainer loads it
 * without a file path (it runs bundled in Electron's main process too).
 * Run after editing a .wat file: npx tsx scripts/build-wasm-kernels.ts
 * (tests/model/wasm-batch-matmul.test.ts fails while a module is out of date).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';

const dir = fileURLToPath(new URL('../trainer-core/model/wasm-kernels/', import.meta.url));

/** The binary of one .wat source, as base64. */
export async function assembleKernel(watPath: string): Promise<string> {
  const wabt = await wabtInit();
  const module = wabt.parseWat(watPath, readFileSync(watPath, 'utf8'), { simd: true, bulk_memory: true });
  try {
    module.validate();
    return Buffer.from(module.toBinary({}).buffer).toString('base64');
  } finally {
    module.destroy();
  }
}

export function moduleText(source: string, base64: string): string {
  return [
    `// Generated from ${source} by scripts/build-wasm-kernels.ts: edit the .wat file and run it again.`,
    `export const WASM_BASE64 = '${base64}';`,
    '',
  ].join('\n');
}

export const kernelSources = (): string[] => readdirSync(dir).filter((name) => name.endsWith('.wat')).map((name) => join(dir, name));
export const modulePath = (watPath: string): string => watPath.replace(/\.wat$/, '-binary.ts');

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const source of kernelSources()) {
    const base = source.slice(dir.length);
    writeFileSync(modulePath(source), moduleText(base, await assembleKernel(source)));
    console.log(`wrote ${modulePath(source).slice(dir.length)}`);
  }
}
