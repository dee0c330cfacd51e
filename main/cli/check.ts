import type { Command } from 'commander';
import { collectSet, configTag, parseSetPairs } from './play';
import { UserError } from './errors';
import { wholeNumber } from './whole-number';

interface CheckCommandOptions {
  episodes: string;
  seed: string;
  steps: string;
  budget: string;
  set?: string[];
}

/**
 * `turnlab check <module>`: what a module author runs before training. Problems go to stdout, one
 * line each; the exit code is 0 when there are none and 2 otherwise, so scripts can gate on it.
 */
export function register(program: Command): void {
  program
    .command('check')
    .description("check an environment module: plays seeded episodes with random and solver actions, checks determinism and every method's result")
    .argument('<env>', 'custom environment module path (or a built-in type)')
    .option('--episodes <n>', 'seeds to play, from --seed on', '8')
    .option('--seed <n>', 'first seed', '0')
    .option('--steps <n>', 'random actions per episode at most', '30')
    .option('--budget <n>', 'action budget for optimalSuccessProbability', '10')
    .option('--set <key=value>', 'environment option (repeatable); values are YAML scalars', collectSet)
    .action(async (envName: string, options: CheckCommandOptions) => {
      const episodes = wholeNumber('--episodes', options.episodes, 1);
      const first = wholeNumber('--seed', options.seed, 0);
      const maxSteps = wholeNumber('--steps', options.steps, 1);
      const actionBudget = wholeNumber('--budget', options.budget, 1);
      const { EnvConfigError, isEnvModulePath, parseEnvOptions, readCustomEnvSpec, getEnvSpec, checkEnv } = await import('../../trainer-core');
      const { resolve } = await import('node:path');
      const isModule = isEnvModulePath(envName);
      // A config's tag (FrozenLake, SimpleSokoban) checks its env_type with that tag's options, as `play` plays it.
      const tagged = isModule ? null : configTag(envName);
      const label = isModule ? `custom environment ${resolve(envName)}` : `environment ${envName}`;
      let report;
      try {
        // The module's own spec, unprobed: the check reports every problem, not the first.
        const spec = isModule ? await readCustomEnvSpec(envName) : getEnvSpec(tagged?.envType ?? envName);
        const envOptions = parseEnvOptions(spec, { ...tagged?.envConfig, ...parseSetPairs(options.set ?? []) });
        const seeds = Array.from({ length: episodes }, (_, i) => first + i);
        report = checkEnv(spec, envOptions, label, { seeds, maxSteps, actionBudget });
      } catch (error) {
        if (error instanceof EnvConfigError) throw new UserError(error.message);
        throw error;
      }
      for (const problem of report.problems) process.stdout.write(`${problem}\n`);
      const solver = report.hasSolver ? `, solver's plan followed on ${report.solverEpisodes}` : ', no solver';
      const summary = `${report.episodes} seeds played twice with random actions (${report.episodesEnded} ended by themselves within ${maxSteps} actions)${solver}`;
      if (report.problems.length > 0) {
        throw new UserError(`${label}: ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'} (listed above); ${summary}`);
      }
      process.stdout.write(`${label}: ok; ${summary}; every result has the right shape and every seed replays the same\n`);
    });
}
