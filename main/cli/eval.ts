import type { Command } from 'commander';
import { formatValue, renderTable } from './format';
import { collectSet } from './play';
import { asTrainingUserError } from './training-errors';
import { UserError } from './errors';
import { withStore } from './with-store';

interface EvalOptions {
  episodes?: string;
  seed?: string;
  set?: string[];
  json?: boolean;
}

function parseCount(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new UserError(`${flag} expects a non-negative integer, got '${text}'`);
  return Number(text);
}

export function register(program: Command): void {
  program
    .command('eval')
    .description("play a checkpoint's policy on validation episodes, store them as an evaluation and print the success rates")
    .argument('<checkpoint>', 'run id or name (latest checkpoint), ckpt:<id>, or a checkpoint folder')
    .option('--episodes <n>', 'episodes to play (default: the run config\'s validation set)')
    .option('--seed <s>', 'first start-state seed (default: the run config\'s validation seeds)')
    .option(
      '--set <key=value>',
      "override a key of the run's config (repeatable), e.g. --set actor_rollout_ref.rollout.val_kwargs.do_sample=false for greedy decoding",
      collectSet,
    )
    .option('--json', 'print JSON')
    .action(async (ref: string, options: EvalOptions, command: Command) => {
      const episodes = parseCount('--episodes', options.episodes);
      const seed = parseCount('--seed', options.seed);
      await withStore(command, async (store) => {
        const { resolveCheckpoint } = await import('../services/training');
        const { recordEvaluation } = await import('../services/stored-evaluation');
        const { resolve } = await import('node:path');
        const checkpoint = resolveCheckpoint(store, ref);
        const { evaluateCheckpoint } = await import('../../trainer-core/train/evaluate');
        const { releaseBackend } = await import('../../trainer-core/backend');
        try {
          const result = await evaluateCheckpoint(resolve(store.dataDir, checkpoint.path), {
            episodes,
            seed,
            overrides: options.set ?? [],
            log: (line) => process.stderr.write(`${line}\n`),
          });
          const stored = recordEvaluation(store, checkpoint, result, { overrides: options.set ?? [], startSeed: seed ?? null });
          const { episodeReports: _played, config: _config, ...figures } = result;
          if (options.json) {
            process.stdout.write(`${JSON.stringify({ checkpoint: checkpoint.id, runId: checkpoint.runId, evaluationId: stored.id, ...figures }, null, 2)}\n`);
          } else {
            process.stdout.write(
              `checkpoint ${checkpoint.id} (run ${checkpoint.runId}, iteration ${result.iteration}): ${result.episodes} episodes, stored as evaluation ${stored.id}\n`,
            );
            const rows = Object.entries(result.metrics)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([name, value]) => [name, formatValue(value)]);
            process.stdout.write(`${renderTable(['metric', 'value'], rows)}\n`);
          }
        } catch (error) {
          throw asTrainingUserError(error instanceof RangeError ? new UserError(error.message) : error);
        } finally {
          await releaseBackend();
        }
      });
    });
}
