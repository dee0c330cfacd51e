// `--config sokoban` as well as `--config configs/sokoban.yaml`: a researcher who knows RAGEN's
// `--config-name _2_sokoban` names a config, and one who runs turnlab outside the checkout has
// no configs/ beside them. A name, or configs/NAME, that is not a file here is the shipped one.
import { InvalidArgumentError } from 'commander';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closestName } from '../../trainer-core';
import { UserError } from './errors';

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
  return configFile(value, `--config ${value}`);
}

function configFile(value: string, label: string): string {
  if (existsSync(value)) return value;
  const name = /^(?:\.\/)?(?:configs\/)?([\w.-]+?)(?:\.ya?ml)?$/.exec(value)?.[1];
  if (name === undefined) return value;
  const names = shippedNames();
  if (names.includes(name)) {
    const file = join(SHIPPED, `${name}.yaml`);
    process.stderr.write(`${label}: the shipped ${file}\n`);
    return file;
  }
  throw new InvalidArgumentError(`no file ${resolve(value)}, and no shipped config of that name (did you mean ${closestName(name, names)}?); shipped: ${names.join(', ')}`);
}

/**
 * `turnlab train configs/bandit.yaml key=value`: the config as the first argument, the way
 * verl's and RAGEN's scripts are often started, when --config is not given. The first argument
 * that is no override (no `=`, no Hydra `+`/`~` prefix) is the config; the rest stay overrides.
 */
export function configFromArguments(command: string, config: string | undefined, args: readonly string[]): { config: string; args: string[] } {
  if (config !== undefined) return { config, args: [...args] };
  const at = args.findIndex((arg) => !arg.includes('=') && !/^[+~]/.test(arg));
  if (at < 0) throw new UserError(`${command} needs a run config: --config <file> (a shipped one by name: --config bandit), or the file first: turnlab ${command} configs/bandit.yaml`);
  try {
    const file = /^run:/.test(args[at]) ? args[at] : configFile(args[at], args[at]);
    return { config: file, args: args.filter((_, i) => i !== at) };
  } catch (error) {
    if (error instanceof InvalidArgumentError) throw new UserError(`${args[at]}: ${error.message}`);
    throw error;
  }
}
