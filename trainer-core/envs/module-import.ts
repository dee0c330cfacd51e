import { register } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * Imports a custom environment module from anywhere on disk.
 *
 * Node decides whether a `.ts` or `.js` file is an ES module from the nearest package.json; a
 * file in a folder without one (or with one lacking `"type": "module"`) counts as CommonJS, and
 * tsx then fails on its `export default` with "Cannot require() ES Module ... in a cycle". The
 * documented interface is an ES module, so a resolve hook marks the env module, and the local
 * files it imports, as ES modules (`.cjs`/`.cts` files and packages keep their own format).
 * The same hook maps the specifier `turnlab/env` to this installation's public entry, so a
 * module outside the repository imports the types and helpers without installing anything.
 */

/** The file `turnlab/env` names (package.json "exports" points at the same file). */
export const PUBLIC_ENTRY_URL = new URL('./public.ts', import.meta.url).href;

// The hook runs on Node's loader thread, so it is plain JavaScript passed as a data: URL (no
// file to ship beside a bundle). `entry` comes from register()'s data: one hook per module.
const HOOK_SOURCE = `
const forced = new Set();
let entry = '';
let publicEntry = '';
const strip = (url) => url.split(/[?#]/)[0];
// tsx marks a CommonJS file imported from ESM with queries (one of them percent-encoded into the
// path); a file made an ES module must be loaded by its plain URL.
const plain = (url) => url.replace(/(%3F|\\?)tsx-.*$/, '');
// Files that may be forced to ESM: local sources, not packages or explicitly CommonJS files.
const local = (url) => url.startsWith('file:') && !url.includes('/node_modules/') && /\\.(ts|tsx|js|jsx|mts|mjs)$/.test(strip(url));
export function initialize(data) { entry = data.entry; publicEntry = data.publicEntry; forced.add(entry); }
export async function resolve(specifier, context, next) {
  if (specifier === 'turnlab/env') return next(publicEntry, context);
  const result = await next(specifier, context);
  const url = strip(plain(result.url));
  const fromForced = context.parentURL !== undefined && forced.has(strip(context.parentURL));
  if ((url === entry || (fromForced && local(url))) && result.format !== 'module' && result.format !== 'module-typescript') {
    forced.add(url);
    return { ...result, url: plain(result.url), format: 'module' };
  }
  return result;
}
`;
const HOOK_URL = `data:text/javascript,${encodeURIComponent(HOOK_SOURCE)}`;

const hooked = new Set<string>();

/** Set by bin/turnlab.js: 'bundle' when it runs the bundle without tsx. */
const CLI_LOADER = Symbol.for('turnlab.cli-loader');

/** Imports the module at an absolute path as an ES module, wherever it lies. */
export async function importEnvModule(absolute: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(absolute).href;
  // The CLI run from its bundle (bin/turnlab.js) has no TypeScript loader until a module needs one.
  const cli = globalThis as { [key: symbol]: unknown };
  if (cli[CLI_LOADER] === 'bundle') {
    (await import('tsx/esm/api')).register();
    cli[CLI_LOADER] = 'tsx';
  }
  // module.register exists from Node 20.6; under other hosts (a bundler's runner) plain import.
  if (typeof register === 'function' && !hooked.has(url)) {
    register(HOOK_URL, { data: { entry: url, publicEntry: PUBLIC_ENTRY_URL } });
    hooked.add(url);
  }
  return (await import(url)) as Record<string, unknown>;
}
