#!/usr/bin/env node
// The CLI runs the TypeScript sources through tsx, or the bundle `npm run build` makes of them
// (scripts/build-cli.mjs) while no source it holds has changed since: the command, the tests and
// the desktop app always execute today's code, and from the bundle a command starts on about a
// third of the CPU (docs/test-suite-time.md).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshBundle } from './fresh-bundle.js';

// `npm run turnlab -- ...` starts in the package's folder; paths on the command line are meant
// from the folder the user typed it in, which npm passes as INIT_CWD.
if (process.env.npm_lifecycle_event === 'turnlab' && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);
// A reader that went away (`turnlab runs | head`) ends the command quietly, as it does for cat;
// any other failure to write stdout (a full disk) is the user's redirection, said in one line.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0);
  process.stderr.write(`turnlab: cannot write the output: ${error.message.split('\n')[0]}; check where stdout goes\n`);
  process.exit(2);
});

// TURNLAB_FROM_SOURCES=1 runs the sources even beside a current bundle.
const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const bundle = process.env.TURNLAB_FROM_SOURCES === '1' ? null : freshBundle(new URL('../out/cli/', import.meta.url), root);
// Modules loaded at run time from outside the bundle (a custom environment's, and `turnlab/env`,
// which is a source file) need tsx then: trainer-core/envs/module-import.ts registers it.
globalThis[Symbol.for('turnlab.cli-loader')] = bundle ? 'bundle' : 'tsx';
if (!bundle) (await import('tsx/esm/api')).register();
const { main } = await import(bundle ?? '../main/cli.ts');
process.exitCode = await main(process.argv.slice(2));
