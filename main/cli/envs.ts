import type { Command } from 'commander';
import { closestName, describeEnvOptions, EnvConfigError, isEnvModulePath, listEnvSpecs, resolveEnvSpec, type EnvSpec } from '../../trainer-core';
import { UserError } from './errors';
import { renderTable } from './format';
import { configTag } from './play';

function formatDefault(value: unknown): string {
  return value === undefined ? '-' : typeof value === 'string' ? value : JSON.stringify(value);
}

/** A custom module's spec, as `play` and `check` load it: the listing then names its options. */
async function customSpec(path: string): Promise<EnvSpec> {
  try {
    return await resolveEnvSpec(path);
  } catch (error) {
    if (error instanceof EnvConfigError) throw new UserError(error.message);
    throw error;
  }
}

export function register(program: Command): void {
  program
    .command('envs')
    .description('list the built-in environments and their options, or a custom module\'s')
    .argument('[env]', 'only this environment (its env_type, e.g. sokoban, a tag of configs/base.yaml, e.g. SimpleSokoban, or a custom module, ./my-env.ts)')
    .option('--json', 'print a JSON array instead of tables')
    .action(async (named: string | undefined, options: { json?: boolean }) => {
      const all = named !== undefined && isEnvModulePath(named) ? [await customSpec(named)] : listEnvSpecs();
      // A config's tag (FrozenLake, SimpleSokoban) names its env_type, as `play` takes it.
      const only = named === undefined ? undefined : all.length === 1 ? all[0].type : (configTag(named)?.envType ?? named);
      if (only !== undefined && !all.some((spec) => spec.type === only)) {
        const types = all.map((spec) => spec.type);
        throw new UserError(`unknown environment '${only}'; did you mean '${closestName(only, types)}'? (${types.join(', ')}; a custom one is the path of its module, ./my-env.ts)`);
      }
      const specs = all.filter((spec) => only === undefined || spec.type === only).map((spec) => ({
        type: spec.type,
        description: spec.description,
        multiAction: spec.multiAction,
        options: describeEnvOptions(spec),
      }));
      if (options.json) {
        process.stdout.write(`${JSON.stringify(specs, null, 2)}\n`);
        return;
      }
      const blocks = specs.map((spec) => {
        const turn = spec.multiAction ? 'several actions per turn' : 'one action per turn';
        const table = renderTable(
          ['option', 'type', 'default', 'description'],
          spec.options.map((o) => [o.key, o.type, formatDefault(o.default), o.description]),
        );
        return `${spec.type}: ${spec.description} (${turn})\n${table}`;
      });
      if (only === undefined) blocks.push('Custom environments: give a module path instead of a type, e.g. examples/custom-env/guess-number.ts');
      process.stdout.write(`${blocks.join('\n\n')}\n`);
    });
}
