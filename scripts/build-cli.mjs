// The `turnlab` command as one ES module bundle (out/cli/), which bin/turnlab.js runs while it is
// newer than every source it was built from; otherwise bin/turnlab.js runs the sources through
// tsx as before. A command then starts in about a third of the CPU: tsx's hooks cost some 1 ms of
// a loader-thread round trip per module, and its first registration most of a second on a slow
// core (docs/test-suite-time.md). `npm run build` (and so `npm test`) runs this.
import { build } from 'esbuild';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const target = join(root, 'out', 'cli');
const staging = `${target}.${process.pid}.tmp`;
const ownSources = new RegExp(`^${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(main|trainer-core|preload)/.*\\.ts$`);

// Each source keeps its own import.meta: files found next to a source (the migrations, the
// worker's entry, the WebGPU probe, package.json) are found from the bundle as from the source.
const keepImportMeta = {
  name: 'keep-import-meta',
  setup(context) {
    context.onLoad({ filter: ownSources }, async (args) => {
      const text = (await readFile(args.path, 'utf8'))
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents: text, loader: 'ts' };
    });
  },
};

// A source saved while the bundle builds is newer than the bundle says it is: stale, as it should be.
const startedAt = Date.now();
await rm(staging, { recursive: true, force: true });
const result = await build({
  // The worker threads' module too (trainer-core/workers/worker-entry.mjs runs it while current).
  entryPoints: { cli: join(root, 'main', 'cli.ts'), worker: join(root, 'trainer-core', 'workers', 'worker-thread.ts') },
  outdir: staging,
  // The metafile's paths are relative to this, wherever the script is run from.
  absWorkingDir: root,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  metafile: true,
  logLevel: 'warning',
  plugins: [keepImportMeta],
});
const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(root, input));
await mkdir(staging, { recursive: true });
await writeFile(join(staging, 'sources.json'), `${JSON.stringify({ root, builtAt: startedAt, inputs }, null, 1)}\n`);
// Into place without removing what a running command may still import: its chunks are named by
// their content, so an earlier build's stay beside this one's (pruned after a week), and the
// entry and the list of sources, which say the bundle is current, come last.
await mkdir(target, { recursive: true });
const built = await readdir(staging);
const last = ['cli.mjs', 'worker.mjs', 'sources.json'];
for (const name of [...built.filter((n) => !last.includes(n)), ...last]) await rename(join(staging, name), join(target, name));
await rm(staging, { recursive: true, force: true });
const weekAgo = Date.now() - 7 * 24 * 3600 * 1000;
for (const name of await readdir(target)) {
  if (!built.includes(name) && (await stat(join(target, name))).mtimeMs < weekAgo) await rm(join(target, name), { force: true });
}
