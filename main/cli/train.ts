import type { Command } from 'commander';
import { connectToHost } from '../trainer-host/channel';
import { UserError } from './errors';
import { collectSet } from './play';
import { asTrainingUserError } from './training-errors';
import { withStore } from './with-store';
import { createProgressReporter } from './progress';

interface TrainOptions {
  config: string;
  set?: string[];
  name?: string;
}

interface ResumeOptions {
  fork?: boolean;
  set?: string[];
  name?: string;
}

export function register(program: Command): void {
  program
    .command('train')
    .description('train a run from a YAML config; Ctrl-C ends the current iteration, saves a checkpoint and marks the run stopped')
    .requiredOption('--config <file>', 'run config (YAML); see configs/')
    .option('--set <key=value>', 'override a config key (repeatable), e.g. --set trainer.total_training_steps=50', collectSet)
    .option('--name <name>', 'run name (default: trainer.experiment_name)')
    .action(async (options: TrainOptions, command: Command) => {
      await withStore(
        command,
        async (store) => {
          const { trainFromConfigFile } = await import('../services/training');
          await runWithProgress((hooks) =>
            trainFromConfigFile(store, options.config, { overrides: options.set ?? [], name: options.name, ...hooks }),
          );
        },
        { create: true },
      );
    });

  program
    .command('resume')
    .description('continue a run from its latest checkpoint (or a given one); --fork starts a child run instead')
    .argument('<run|checkpoint>', 'run id or name (latest checkpoint), ckpt:<id>, or a checkpoint folder')
    .option('--fork', 'start a child run from the checkpoint, linked to its parent')
    .option('--set <key=value>', 'override a config key (repeatable)', collectSet)
    .option('--name <name>', 'name of the forked run')
    .action(async (ref: string, options: ResumeOptions, command: Command) => {
      await withStore(command, async (store) => {
        const { resumeFromCheckpoint } = await import('../services/training');
        await runWithProgress((hooks) =>
          resumeFromCheckpoint(store, ref, { fork: options.fork, overrides: options.set ?? [], name: options.name, ...hooks }),
        );
      });
    });
}

type Hooks = {
  log: (line: string) => void;
  onIteration: (iteration: number, total: number, metrics: Record<string, number>) => void;
  shouldStop: () => boolean;
  onRunCreated: (run: { id: number; name: string }) => void;
};

async function runWithProgress(start: (hooks: Hooks) => Promise<{ run: { id: number; name: string; status: string }; result: { lastIteration: number } }>): Promise<void> {
  const progress = createProgressReporter(process.stderr);
  // Started by the app or `serve`: the run id, progress and stop requests go over this channel.
  const host = connectToHost();
  let runId = 0;
  let stopRequested = false;
  const onSigint = () => {
    if (stopRequested) process.exit(130);
    stopRequested = true;
    progress.note('stopping after this iteration (a checkpoint will be saved); press Ctrl-C again to abort');
  };
  host?.onMessage(() => {
    if (!stopRequested) onSigint();
  });
  // SIGTERM too: the desktop app stops a trainer in a utilityProcess with kill(), a SIGTERM.
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  try {
    const outcome = await start({
      log: (line) => progress.note(line),
      onIteration: (iteration, total, metrics) => {
        progress.update(iteration, total, metrics);
        host?.send({ type: 'progress', runId, iteration, total, metrics });
      },
      shouldStop: () => stopRequested,
      onRunCreated: (run) => {
        runId = run.id;
        progress.note(`run ${run.id} (${run.name})`);
        host?.send({ type: 'run', runId: run.id, name: run.name });
      },
    });
    progress.finish();
    process.stdout.write(`run ${outcome.run.id} (${outcome.run.name}) ${outcome.run.status} at iteration ${outcome.result.lastIteration}\n`);
  } catch (error) {
    progress.finish();
    const userError = asTrainingUserError(error);
    const text = userError instanceof Error ? userError.message : String(userError);
    host?.send({ type: 'failed', message: userError instanceof UserError ? text : `internal error: ${text}` });
    throw userError;
  } finally {
    host?.close();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
    const { releaseBackend } = await import('../../trainer-core/backend');
    await releaseBackend();
  }
}
