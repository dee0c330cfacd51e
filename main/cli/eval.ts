import type { Command } from 'commander';
import type { Store } from '../store/db';
import { formatValue, renderTable } from './format';
import { collectSet } from './play';
import { asTrainingUserError } from './training-errors';
import { evaluationOverrideNotes, evaluationSeedNote, MAX_ROLLOUT_EPISODES } from '../../trainer-core';
import { UserError } from './errors';
import { wholeNumber } from './whole-number';
import { withStore } from './with-store';
import { configFileOption } from './config-file';
import { hydraOverrides } from './hydra-overrides';
import { selectRuns, WHERE_OPTION } from './runs';

interface EvalOptions {
  model?: string;
  config?: string;
  episodes?: string;
  seed?: string;
  set?: string[];
  json?: boolean;
  where?: string[];
  greedy?: boolean;
}

/** One wording for every bad count, worded as the evaluator words a count too small for the tags. */
function parseCount(flag: string, text: string | undefined, least: number, most?: number): number | undefined {
  return text === undefined ? undefined : wholeNumber(flag, text, least, most);
}

export function register(program: Command): void {
  program
    .command('eval')
    .description("play a checkpoint's policy on validation episodes, store them as an evaluation and print the success rates; with --model, an untrained pretrained model (not stored)")
    .argument('[checkpoint]', 'run id or name (latest checkpoint), ckpt:<id>, or a checkpoint folder')
    .argument('[overrides...]', 'config overrides as verl and Hydra write them: actor_rollout_ref.rollout.val_kwargs.do_sample=false (the same as --set, applied after it)')
    .option('--model <folder>', 'a Hugging Face model folder to play untrained (needs --config)')
    .option('--config <file>', 'run config (YAML) whose validation episodes and decoding --model plays, or a shipped one by name', configFileOption)
    .option('--episodes <n>', 'episodes to play (default: the run config\'s validation set)')
    .option('--seed <s>', 'first start-state seed (default: the run config\'s validation seeds)')
    .option(
      '--set <key=value>',
      "override a key of the run's config (repeatable), e.g. --set actor_rollout_ref.rollout.val_kwargs.do_sample=false for greedy decoding",
      collectSet,
    )
    .option('--greedy', 'decode greedily (the same as actor_rollout_ref.rollout.val_kwargs.do_sample=false)')
    .option(WHERE_OPTION.flags, "play the latest checkpoint of every run that meets a condition (e.g. 'tag=seeds:sokoban', a seed group), then print each run's success and their mean ± std; repeatable", WHERE_OPTION.collect, [] as string[])
    .option('--json', 'print JSON')
    .action(async (first: string | undefined, rest: string[], options: EvalOptions, command: Command) => {
      const episodes = parseCount('--episodes', options.episodes, 1, MAX_ROLLOUT_EPISODES);
      const seed = parseCount('--seed', options.seed, 0);
      // With --model every word after the command is an override; without, the first names the checkpoint.
      const looksLikeOverride = first !== undefined && /^[+~]|^[^/\\]+=/.test(first);
      const ref = options.model !== undefined || looksLikeOverride ? undefined : first;
      if (options.model !== undefined && first !== undefined && !looksLikeOverride) throw new UserError('give a checkpoint or --model, not both');
      const positional = ref === undefined && first !== undefined ? [first, ...rest] : rest;
      const overrides = [...(options.set ?? []), ...hydraOverrides(positional), ...(options.greedy ? ['actor_rollout_ref.rollout.val_kwargs.do_sample=false'] : [])];
      for (const note of evaluationOverrideNotes(overrides)) logLine(note);
      if (options.model !== undefined) {
        if (options.config === undefined) throw new UserError('--model needs --config <file>: the run config whose validation episodes to play');
        await evaluateModelFolder(options.model, options.config, { episodes, seed, overrides }, options.json === true);
        return;
      }
      const where = options.where ?? [];
      if (where.length > 0) {
        if (ref !== undefined) throw new UserError(`give a checkpoint (${ref}) or --where, not both`);
        await evaluateSelected(command, where, { episodes, seed, overrides }, options.json === true);
        return;
      }
      if (ref === undefined) {
        const after = looksLikeOverride ? `, then the overrides: turnlab eval <run> ${first}` : '';
        throw new UserError(`give a checkpoint (run id or name, ckpt:<id>, a folder) or --model <folder> --config <file>${after}`);
      }
      await withStore(command, async (store) => {
        const { resolveFinishedCheckpoint } = await import('../services/checkpoint-refs');
        const { recordEvaluation } = await import('../services/stored-evaluation');
        const { resolve } = await import('node:path');
        const checkpoint = resolveFinishedCheckpoint(store, ref, 'evaluate');
        const { evaluateCheckpoint } = await import('../../trainer-core/compute');
        await evaluating(async () => {
          const result = await evaluateCheckpoint(resolve(store.dataDir, checkpoint.path), { episodes, seed, overrides, log: logLine });
          const stored = recordEvaluation(store, checkpoint, result, { overrides, startSeed: seed ?? null });
          const { episodeReports: _played, config: _config, ...figures } = result;
          if (options.json) {
            process.stdout.write(`${JSON.stringify({ checkpoint: checkpoint.id, runId: checkpoint.runId, evaluationId: stored.id, ...figures }, null, 2)}\n`);
          } else {
            process.stdout.write(
              `checkpoint ${checkpoint.id} (run ${checkpoint.runId}, iteration ${result.iteration}): ${result.episodes} episodes, stored as evaluation ${stored.id}\n`,
            );
            printMetrics(result.metrics);
            for (const line of ownValidationNotes(store, checkpoint.runId, result.iteration, result.metrics, result.episodes, overrides)) process.stdout.write(`${line}\n`);
            const seedNote = evaluationSeedNote(result.config, result.iteration);
            if (seedNote !== null) logLine(seedNote);
          }
        });
      });
    });
}

/**
 * The run's own validation at the checkpoint's iteration beside the evaluation's: they are two
 * samples, and a researcher comparing them should see how far apart two samples fall: the
 * standard error of their difference, from the pooled rate (a sample of all failures alone
 * would read ± 0). Overrides (greedy decoding, another temperature) make a difference of their own.
 */
function ownValidationNotes(store: Store, runId: number, iteration: number, metrics: Record<string, number>, episodes: number, overrides: readonly string[]): string[] {
  return Object.entries(metrics)
    .filter(([name]) => /^val\/.+\/success$/.test(name))
    .flatMap(([name, value]) => {
      const own = store.metrics.series(runId, name).find((point) => point.iteration === iteration);
      if (!own || own.value === null) return [];
      const ownCount = store.metrics.series(runId, name.replace(/success$/, 'num_episodes')).find((point) => point.iteration === iteration)?.value ?? episodes;
      const n = Math.max(1, episodes);
      const m = Math.max(1, ownCount);
      const pooled = (value * n + own.value * m) / (n + m);
      const spread = Math.sqrt(pooled * (1 - pooled) * (1 / n + 1 / m));
      const why = overrides.length > 0 ? ` under ${overrides.join(' ')}, so the two differ by those settings and by sampling` : ', so the two differ by sampling';
      return [`the run's own ${name} at iteration ${iteration}: ${formatValue(own.value)} over ${m} episodes; this evaluation played its own ${episodes} episodes${why}, about ± ${spread.toFixed(3)} (one standard error of the difference)`];
    });
}

const logLine = (line: string) => process.stderr.write(`${line}\n`);

async function evaluateSelected(command: Command, where: string[], options: { episodes?: number; seed?: number; overrides: string[] }, json: boolean): Promise<void> {
  const { evaluateRuns, renderEvaluationTable } = await import('./eval-runs');
  await withStore(command, async (store) => {
    const ids = selectRuns(store, [], false, where, 'evaluate');
    await evaluating(async () => {
      const results = await evaluateRuns(store, ids, { ...options, log: logLine });
      if (results.length === 0) throw new UserError(`none of the ${ids.length} run(s) matching --where has a checkpoint; nothing was evaluated`);
      if (json) {
        const rows = results.map((r) => ({ runId: r.runId, name: r.name, seed: r.seed, checkpoint: r.checkpoint.id, iteration: r.checkpoint.iteration, evaluationId: r.evaluationId, episodes: r.episodes, metrics: r.metrics }));
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      } else {
        process.stdout.write(`${renderEvaluationTable(results)}\n`);
      }
    });
  });
}

async function evaluateModelFolder(model: string, configPath: string, options: { episodes?: number; seed?: number; overrides: string[] }, json: boolean): Promise<void> {
  const { loadRunConfig } = await import('../../trainer-core');
  const { evaluatePretrainedModel, looksLikeHubId } = await import('../../trainer-core/compute');
  const [{ resolve }, { existsSync }] = await Promise.all([import('node:path'), import('node:fs')]);
  // A Hub id (`Qwen/Qwen2.5-0.5B-Instruct`) that is no folder here is read from the Hugging Face cache, not as a relative path.
  const path = looksLikeHubId(model) && !existsSync(model) ? model : resolve(model);
  await evaluating(async () => {
    const cfg = loadRunConfig(configPath, options.overrides);
    const result = await evaluatePretrainedModel(path, cfg, { ...options, log: logLine });
    const { episodeReports: _played, config: _config, ...figures } = result;
    if (json) {
      process.stdout.write(`${JSON.stringify({ model: path, config: configPath, ...figures }, null, 2)}\n`);
    } else {
      process.stdout.write(`model ${path} (untrained) on ${configPath}: ${result.episodes} episodes\n`);
      printMetrics(result.metrics);
    }
  });
}

/** Runs an evaluation with the backend released after and user errors as one line. */
async function evaluating(body: () => Promise<void>): Promise<void> {
  const { releaseBackend } = await import('../../trainer-core/compute');
  try {
    await body();
  } catch (error) {
    throw asTrainingUserError(error instanceof RangeError ? new UserError(error.message) : error);
  } finally {
    await releaseBackend();
  }
}

function printMetrics(metrics: Record<string, number>): void {
  const rows = Object.entries(metrics)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => [name, formatValue(value)]);
  process.stdout.write(`${renderTable(['metric', 'value'], rows)}\n`);
}
