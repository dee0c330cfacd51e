// A worker thread starts here. It runs the same code as the main thread: the worker's module
// from the CLI's bundle while that is current (scripts/build-cli.mjs, bin/fresh-bundle.js),
// else the TypeScript sources through tsx, which costs each worker most of a second of CPU more.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshBundle } from '../../bin/fresh-bundle.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const bundled = process.env.TURNLAB_FROM_SOURCES === '1' ? null : freshBundle(new URL('../../out/cli/', import.meta.url), root, 'worker.mjs');
if (bundled) {
  await import(bundled);
} else {
  (await import('tsx/esm/api')).register();
  await import('./worker-thread.ts');
}
