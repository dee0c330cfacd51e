/**
 * Environment throughput: steps/s and resets/s of every built-in env with its default options,
 * playing random legal actions (grid worlds) or the solver's answer (one-step text envs).
 * Run alone: npx tsx bench/envs.ts [--seconds N]
 */
import { pathToFileURL } from 'node:url';
import { listEnvSpecs, parseEnvOptions, type EnvSpec } from '../trainer-core/envs';
import { Rng } from '../trainer-core/rng';
import { WHOLE, runAlone, unknownOption, valueAfter, wholeNumber } from './lib/bench-args';

export const USAGE = `envs: steps/s and resets/s of every built-in env on one core (about ${listEnvSpecs().length} s on 2 cores with the default)
usage: npm run bench -- envs [--seconds N]
  --seconds   seconds of play per env, default 1`;

export function parseEnvsArgs(args: readonly string[]): { seconds: number } {
  let seconds = 1;
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] !== '--seconds') throw unknownOption(args[i], ['--seconds']);
    seconds = wholeNumber(args[i], valueAfter(args, i, args[i], WHOLE));
  }
  return { seconds };
}

interface EnvThroughput {
  type: string;
  steps: number;
  stepsPerSecond: number;
  resetsPerSecond: number;
}

function measure(spec: EnvSpec, seconds: number): EnvThroughput {
  const env = spec.create(parseEnvOptions(spec, {}));
  const rng = new Rng(1);
  let stepTime = 0;
  let resetTime = 0;
  let steps = 0;
  let resets = 0;
  const wallEnd = performance.now() + seconds * 1000;
  for (let seed = 0; performance.now() < wallEnd; seed++) {
    let t = performance.now();
    env.reset(seed);
    resetTime += performance.now() - t;
    resets++;
    const names = env.actionNames();
    // Text envs take one answer; use the solver's so the whole scoring path runs.
    const answer = names ? null : (env.solve?.()?.[0] ?? '1 + 2');
    for (let i = 0; i < 100; i++) {
      const action = names ? rng.choice(names) : answer!;
      t = performance.now();
      const result = env.step(action);
      stepTime += performance.now() - t;
      steps++;
      if (result.done) break;
    }
  }
  return { type: spec.type, steps, stepsPerSecond: (steps / stepTime) * 1000, resetsPerSecond: (resets / resetTime) * 1000 };
}

/** `args`: the words after `envs` (`npm run bench -- envs --seconds 3`). */
export default async function benchEnvs(args: readonly string[]): Promise<void> {
  const secondsPerEnv = parseEnvsArgs(args).seconds;
  process.stdout.write('Environment throughput (default options, one core)\n');
  for (const spec of listEnvSpecs()) {
    const r = measure(spec, secondsPerEnv);
    const fmt = (v: number) => Math.round(v).toLocaleString('en-US').padStart(12);
    process.stdout.write(`  ${r.type.padEnd(12)} ${fmt(r.stepsPerSecond)} steps/s ${fmt(r.resetsPerSecond)} resets/s   (${r.steps} steps)\n`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runAlone('envs', USAGE, benchEnvs);
