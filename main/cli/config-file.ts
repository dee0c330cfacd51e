// `--config sokoban` as well as `--config configs/sokoban.yaml`: a researcher who knows RAGEN's
// `--config-name _2_sokoban` names a config, and one who runs turnlab outside the checkout has
// no configs/ beside them. A name, or configs/NAME, that is not a file here is the shipped one.
import { InvalidArgumentError } from 'commander';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closestName } from '../../trainer-core';

const SHIPPED = fileURLToPath(new URL('../../configs/', import.meta.url));

function shippedNames(): string[] {
  return readdirSync(SHIPPED)
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => file.slice(0, -'.yaml'.length))
    .sort();
}

/**
 * The file a `--config` value names. A name (or configs/NAME) that is no file here is the shipped
 * config of that name, or refused with the shipped names; any other path goes on to the loader,
 * which says it is not found (as a cluster task's failure reason does).
 */
export function configFileOption(value: string): string {
  if (existsSync(value)) return value;
  const name = /^(?:\.\/)?(?:configs\/)?([\w.-]+?)(?:\.ya?ml)?$/.exec(value)?.[1];
  if (name === undefined) return value;
  const names = shippedNames();
  if (names.includes(name)) {
    const file = join(SHIPPED, `${name}.yaml`);
    process.stderr.write(`--config ${value}: the shipped ${file}\n`);
    return file;
  }
  throw new InvalidArgumentError(`no file ${resolve(value)}, and no shipped config of that name (did you mean ${closestName(name, names)}?); shipped: ${names.join(', ')}`);
}
