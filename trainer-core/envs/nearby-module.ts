import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { distance } from 'fastest-levenshtein';

const MODULE_EXTENSION = /\.(m|c)?(t|j)s$/;

/**
 * What to add to "file not found" for a module path: the folder that is missing too, or the
 * module beside it that the path names without its extension (as an import would) or misspells
 * by a letter or two. Nothing when no file there is that close: a guess far off misleads.
 */
export function nearbyModuleHint(absolute: string): string {
  const folder = dirname(absolute);
  if (!existsSync(folder)) return ` (nor its folder ${folder})`;
  const name = basename(absolute);
  let modules: string[];
  try {
    modules = readdirSync(folder).filter((file) => MODULE_EXTENSION.test(file));
  } catch {
    return '';
  }
  const extended = ['.ts', '.js', '.mts', '.mjs', '.cts', '.cjs'].map((extension) => name + extension).find((file) => modules.includes(file));
  const near = extended ?? modules.map((file) => ({ file, d: distance(file, name) })).filter(({ d }) => d <= 2).sort((a, b) => a.d - b.d)[0]?.file;
  return near === undefined ? '' : `; did you mean ${join(folder, near)}?`;
}

/** What to add to an import's "Cannot find package 'x'": packages resolve from the module's folder up. */
export function missingPackageHint(reason: string, absolute: string): string {
  const name = /Cannot find (?:package|module) '([^'./][^']*)'/.exec(reason)?.[1];
  return name === undefined ? '' : `; packages resolve from the module's folder and those above it: npm install ${name} in ${dirname(absolute)} (or a folder above)`;
}
