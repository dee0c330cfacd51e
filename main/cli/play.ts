import { visibleControls } from './format';
import type { Command } from 'commander';
import { createInterface } from 'node:readline';
import { stripVTControlCharacters } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { defaultRunConfigInput, EnvConfigError, matchActionName, parseEnvOptions, resolveEnvSpec, type Env, type EnvSpec, type StepResult } from '../../trainer-core';
import { UserError } from './errors';
import { describeReply, isWholeReply, readReply } from './play-reply';
import { wholeNumber } from './whole-number';

/** Commander collector for a repeatable `--set key=value`. */
export function collectSet(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `key=value` pairs into raw options; values are YAML scalars, so `4`, `true`, `0.5`, `[8, 8]` work. */
export function parseSetPairs(pairs: readonly string[]): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UserError(`--set expects key=value, got '${pair}'`);
    const key = pair.slice(0, eq).trim();
    try {
      raw[key] = parseYaml(pair.slice(eq + 1));
    } catch (error) {
      const list = /^\s*\[/.test(pair.slice(eq + 1)) ? `; quote items such as * or -: ${key}='["*", "-"]'` : '';
      throw new UserError(`--set ${key}: the value is not valid YAML (${error instanceof Error ? error.message.split('\n')[0] : String(error)})${list}`);
    }
  }
  return raw;
}

/** Runs `fn`, reporting env configuration mistakes as user errors (exit code 2). */
function asUserError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof EnvConfigError) throw new UserError(error.message);
    throw error;
  }
}

/** Resolves an env name or module path and validates its options, turning config mistakes into exit code 2. */
export async function envFromCli(nameOrPath: string, pairs: readonly string[]): Promise<{ spec: EnvSpec; options: Record<string, unknown> }> {
  try {
    const tagged = configTag(nameOrPath);
    const spec = await resolveEnvSpec(tagged?.envType ?? nameOrPath);
    const options = parseEnvOptions(spec, { ...tagged?.envConfig, ...parseSetPairs(pairs) });
    return { spec, options };
  } catch (error) {
    if (error instanceof EnvConfigError) throw new UserError(error.message);
    throw error;
  }
}

/**
 * A config's tag for an environment (`FrozenLake`, `SimpleSokoban`, `LargerSokoban`: RAGEN's
 * names, the keys of `custom_envs` in configs/base.yaml), as a RAGEN user names what to play:
 * its env_type with its env_config. Null for an env's own name or a module path.
 */
export function configTag(name: string): { envType: string; envConfig: Record<string, unknown> } | null {
  if (/[/\\.]/.test(name)) return null;
  const tags = (defaultRunConfigInput() as { custom_envs?: Record<string, { env_type?: unknown; env_config?: unknown }> }).custom_envs ?? {};
  const tag = Object.entries(tags).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  if (!tag || typeof tag.env_type !== 'string' || tag.env_type === name) return null;
  return { envType: tag.env_type, envConfig: (tag.env_config ?? {}) as Record<string, unknown> };
}

interface PlayOptions {
  seed: string;
  set?: string[];
  solve?: boolean;
  budget: string;
  maxActionsPerTurn: string;
}

function write(text: string): void {
  process.stdout.write(`${visibleControls(text)}\n`);
}

function formatReward(value: number): string {
  return String(Number(value.toFixed(6)));
}

function describeStep(result: StepResult): string {
  const flags = [result.info.actionIsValid ? 'valid' : 'invalid action', result.info.actionIsEffective ? 'effective' : 'no effect'];
  if (result.info.success) flags.push('success');
  return `reward: ${formatReward(result.reward)}  done: ${result.done}  (${flags.join(', ')})`;
}

function printIntro(env: Env, type: string, seed: number, observation: string): void {
  write(`Environment: ${type}  seed: ${seed}`);
  write(env.instructions());
  const legend = env.legend();
  if (legend) write(`Legend:\n${legend}`);
  const names = env.actionNames();
  write(names ? `Actions: ${names.join(', ')}` : 'Actions: free text, one answer per line');
  write(`\nState:\n${observation}`);
}

/** --solve: the solver's actions, one per line, so they can be piped back into `turnlab play`. */
function printSolution(env: Env, type: string, budget: number): void {
  if (!env.solve && !env.optimalSuccessProbability) throw new UserError(`environment '${type}' has no solver`);
  const actions = env.solve ? env.solve() : null;
  if (actions) {
    for (const action of actions) write(action);
    return;
  }
  const probability = env.optimalSuccessProbability?.(budget);
  if (probability !== undefined) {
    // Where moves slip, each next move depends on where the last landed: the first is what is known.
    const next = env.planTurn?.({ turnsLeft: budget, actionsLeft: budget, maxActionsPerTurn: 1 })?.[0];
    const move = next !== undefined ? `; its best first move is ${next}` : '';
    process.stderr.write(
      `no fixed action sequence is optimal here; the optimal policy succeeds with probability ${probability.toFixed(4)} within ${budget} actions${move}\n`,
    );
  } else {
    process.stderr.write('no solution from this state\n');
  }
}

/**
 * One action per line, or a whole reply with its tags, read as the rollout reads it (its valid
 * actions played in turn until the episode ends). On a terminal readline edits the line (arrow keys move the cursor and
 * recall earlier actions instead of being echoed as escape codes); a line that names no action of
 * a named-action env is refused without taking a step, as a typo should be.
 */
async function playEpisode(env: Env, maxActionsPerTurn: number): Promise<void> {
  const interactive = process.stdin.isTTY === true;
  const input = createInterface({ input: process.stdin, output: interactive ? process.stdout : undefined, terminal: interactive, prompt: '> ' });
  const names = env.actionNames();
  const replyOptions = { actionSep: '||', maxActionsPerTurn, actionNames: names };
  let episodeReturn = 0;
  let steps = 0;
  let last: StepResult | null = null;
  if (interactive) input.prompt();
  for await (const line of input) {
    // Escape sequences (arrow keys typed into a pipe or a dumb terminal) are not part of an action.
    const action = stripVTControlCharacters(line).trim();
    if (action === '') {
      if (interactive) input.prompt();
      continue;
    }
    if (!interactive) write(`> ${action}`);
    let actions = [action];
    if (isWholeReply(action)) {
      const parsed = readReply(action, replyOptions);
      write(describeReply(parsed, action, replyOptions));
      actions = parsed.validActions;
    } else if (names && matchActionName(action, names) === null) {
      // The agent's `Left || Up` is several actions in one reply; here each takes a line.
      const several = action.includes('||') ? ': play takes one action a line, or a whole reply with its tags (<answer>Left || Up</answer>)' : '';
      write(`'${action}' is not an action${several}; use one of: ${names.join(', ')} (no step taken)`);
      actions = [];
    }
    for (const next of actions) {
      last = env.step(next);
      steps++;
      episodeReturn += last.reward;
      write(actions.length > 1 ? `${next}: ${describeStep(last)}` : describeStep(last));
      write(`State:\n${last.observation}`);
      if (last.done) break;
    }
    if (last?.done) break;
    if (interactive) input.prompt();
  }
  input.close();
  const ending = last?.done ? 'Episode finished' : 'Input ended before the episode finished';
  write(`\n${ending}: return ${formatReward(episodeReturn)}, success: ${last?.done === true && last.info.success}, steps: ${steps}`);
}

export function register(program: Command): void {
  program
    .command('play')
    .description('play one episode in the terminal: one action per line on stdin (pipes work), or a whole reply (<think>...</think><answer>Left || Up</answer>) read as the rollout reads it')
    .argument('<env>', 'environment type (see `turnlab envs`) or a custom environment module path')
    .option('--seed <n>', 'episode seed', '0')
    .option('--set <key=value>', 'environment option (repeatable); values are YAML scalars', collectSet)
    .option('--solve', "print the solver's action sequence, one action per line, instead of playing")
    .option('--max-actions-per-turn <n>', 'actions of a whole reply (<answer>Left || Up</answer>) read, as agent_proxy.max_actions_per_turn', '5')
    .option('--budget <n>', 'action budget for the optimal success probability that --solve reports on stochastic worlds', '10')
    .action(async (envName: string, options: PlayOptions) => {
      const seed = wholeNumber('--seed', options.seed, 0);
      const budget = wholeNumber('--budget', options.budget, 1);
      const maxActionsPerTurn = wholeNumber('--max-actions-per-turn', options.maxActionsPerTurn, 1);
      const { spec, options: envOptions } = await envFromCli(envName, options.set ?? []);
      const { env, observation } = asUserError(() => {
        const made = spec.create(envOptions);
        return { env: made, observation: made.reset(seed) };
      });
      if (options.solve) {
        printSolution(env, spec.type, budget);
        return;
      }
      printIntro(env, spec.type, seed, observation);
      await playEpisode(env, maxActionsPerTurn);
    });
}
