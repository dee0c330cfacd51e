// Whether the CLI bundle (scripts/build-cli.mjs) may run instead of the sources: built for this
// checkout, and no source it holds saved since it was built (or gone).
import { existsSync, readFileSync, statSync } from 'node:fs';

/**
 * The URL of the bundle's entry `name` (cli.mjs, or worker.mjs for the worker threads) under
 * `dir` (a folder URL) when it is current for `root`; null otherwise.
 */
export function freshBundle(dir, root, name = 'cli.mjs') {
  const entry = new URL(name, dir);
  try {
    const { root: builtFor, builtAt, inputs } = JSON.parse(readFileSync(new URL('sources.json', dir), 'utf8'));
    if (builtFor !== root || !existsSync(entry) || !Array.isArray(inputs) || inputs.length === 0) return null;
    for (const input of inputs) if (statSync(input).mtimeMs >= builtAt) return null;
    return entry.href;
  } catch {
    return null;
  }
}
