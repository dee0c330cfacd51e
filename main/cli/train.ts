import { InvalidArgumentError, type Command } from 'commander';
import { parseSeeds } from '../../preload/seed-list';
import { connectToHost } from '../trainer-host/channel';
import { INTERRUPTED_EXIT_CODE, noteInterrupted, UserError } from './errors';
import { hydraOverrides } from './hydra-overrides';
import { collectSet } from './play';
import { asTrainingUserError } from './training-errors';
import { withStore } from './with-store';
import { createProgressReporter } from './progress';
import { configFileOption, configFromArguments } from './config-file';
import { validationSummary } from './run-summary';
import type { Store } from '../store/db';
import type { CheckpointRecord } from '../store/types';

interface TrainOptions {
  config: string;
  set?: string[];
  name?: string;
  tag?: string[];
  seeds?: number[];
  concurrency?: number;
  resumeExisting?: boolean;
}

/** `--seeds` of train and sweep: a count or a list, refused as commander refuses a bad option. */
export function seedsOption(value: string): number[] {
  try {
    return parseSeeds(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function concurrencyOption(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1) throw new InvalidArgumentError(`'${value}' is not a number of runs at once (1 or more)`);
  return Number(value);
}

interface ResumeOptions {
  fork?: boolean;
  set?: string[];
  name?: string;
  discardLater?: boolean;
}

/**
 * Resuming an earlier checkpoint of a run continues that run from it, deleting what it saved
 * later: refused unless asked for by name (the workbench asks the same question before it).
 */
function refuseLostCheckpoints(store: Store, checkpoint: CheckpointRecord, ref: string): void {
  const later = store.checkpoints.listByRun(checkpoint.runId).filter((c) => c.iteration > checkpoint.iteration);
  if (later.length === 0) return;
  const named = later.map((c) => `ckpt:${c.id} (iteration ${c.iteration})`).join(', ');
  throw new UserError(
    `${ref} is checkpoint ${checkpoint.id} at iteration ${checkpoint.iteration} of run ${checkpoint.runId}; resuming it continues that run from there and deletes what it recorded after iteration ${checkpoint.iteration}, with its later checkpoints ${named}. Pass --discard-later to do that, or --fork to train a child run from it and keep them`,
  );
}

export function register(program: Command): void {
  program
    .command('train')
    .description('train a run from a YAML config; Ctrl-C ends the current iteration, saves a checkpoint and marks the run stopped')
    .argument('[overrides...]', 'config overrides as verl and Hydra write them: trainer.total_training_steps=50 (the same as --set, applied after it); without --config the first argument is the config: turnlab train configs/bandit.yaml')
    .option('--config <file>', 'run config (YAML), a shipped one by name (sokoban; see configs/), or run:<run> for the config a past run trained with', configFileOption)
    .option('--set <key=value>', 'override a config key (repeatable), e.g. --set trainer.total_training_steps=50', collectSet)
    .option('--name <name>', 'run name (default: trainer.experiment_name); with --seeds, the base of `<name>-s<seed>`')
    .option('--tag <tag>', 'tag the run (repeatable)', collectSet)
    .option('--seeds <n|list>', 'a group of runs differing only by trainer.seed: 5 means seeds 0..4, 1,2,3 those seeds, 7, seed 7 alone', seedsOption)
    .option('--concurrency <n>', 'with --seeds, runs trained at once (default: half the cores)', concurrencyOption)
    .option('--resume-existing', "where the data folder holds a run of this name and config already (a requeued Slurm task's earlier attempt), continue it from its latest checkpoint instead of training a second one")
    .action(async (args: string[], flags: Omit<TrainOptions, 'config'> & { config?: string }, command: Command) => {
      if (flags.concurrency !== undefined && !flags.seeds) throw new UserError('--concurrency applies to a seed group; add --seeds');
      if (flags.resumeExisting && flags.seeds) throw new UserError('--resume-existing continues one run of its name; leave out --seeds (a seed group trains each seed once)');
      const { config, args: positional } = configFromArguments('train', flags.config, args);
      const options: TrainOptions = { ...flags, config };
      const overrides = [...(options.set ?? []), ...hydraOverrides(positional)];
      await withStore(
        command,
        async (store) => {
          const { isRunConfigRef, writeRunConfig } = await import('../services/run-config-file');
          if (isRunConfigRef(options.config)) options.config = writeRunConfig(store, options.config);
          if (options.seeds) {
            if (options.tag) throw new UserError('a seed group tags its runs itself (seeds:<name>); leave out --tag');
            const { trainSeedGroup } = await import('./train-seeds');
            const { seeds, concurrency, name } = options;
            await trainSeedGroup(store, { configPath: options.config, overrides, name, seeds, concurrency }).catch((error: unknown) => {
              throw asTrainingUserError(error);
            });
            return;
          }
          if (options.resumeExisting && (await continueExisting(store, { configPath: options.config, overrides, name: options.name }))) return;
          const { trainFromConfigFile } = await import('../services/training');
          await stampBundle(store.dataDir);
          await runWithProgress(
            (hooks) => trainFromConfigFile(store, options.config, { overrides, name: options.name, tags: options.tag, ...hooks }),
            (runId) => validationSummary(store, runId),
          );
        },
        { create: true },
      );
    });

  program
    .command('resume')
    .description('continue a run from its latest checkpoint (or a given one); --fork starts a child run instead')
    .argument('<run|checkpoint>', 'run id or name (latest checkpoint), ckpt:<id>, or a checkpoint folder')
    .argument('[overrides...]', 'config overrides as verl and Hydra write them: trainer.total_training_steps=60 (the same as --set, applied after it)')
    .option('--fork', 'start a child run from the checkpoint, linked to its parent')
    .option('--set <key=value>', 'override a config key (repeatable)', collectSet)
    .option('--name <name>', 'name of the forked run')
    .option('--discard-later', "resume an earlier checkpoint of a run in place, deleting the iterations and checkpoints it recorded after it (without it, that is refused; --fork keeps them)")
    .action(async (ref: string, positional: string[], options: ResumeOptions, command: Command) => {
      const overrides = [...(options.set ?? []), ...hydraOverrides(positional)];
      // The same run keeps its name: `turnlab rename` renames it.
      if (options.name !== undefined && !options.fork) throw new UserError(`--name names the child run of --fork; to rename run ${ref} itself: turnlab rename ${ref} ${JSON.stringify(options.name)}`);
      if (options.discardLater && options.fork) throw new UserError('--fork keeps every checkpoint of the run it starts from; leave out --discard-later');
      await withStore(command, async (store) => {
        const { resumeFromCheckpoint } = await import('../services/training');
        const { resolveCheckpoint } = await import('../services/checkpoint-refs');
        if (!options.fork && !options.discardLater) refuseLostCheckpoints(store, resolveCheckpoint(store, ref), ref);
        await stampBundle(store.dataDir);
        await runWithProgress(
          (hooks) => resumeFromCheckpoint(store, ref, { fork: options.fork, overrides, name: options.name, ...hooks }),
          (runId) => validationSummary(store, runId),
        );
      });
    });
}

/**
 * `--resume-existing`: true when the folder's run of this name was resumed here or had completed
 * already; false when a new run is to be trained (none there, or one that saved no checkpoint).
 */
async function continueExisting(store: Store, request: { configPath: string; overrides: string[]; name?: string }): Promise<boolean> {
  const { planExistingRun } = await import('../services/requeued-run');
  // A config that cannot be read is refused here, before training, in the words train would use.
  const plan = await planExistingRun(store, request).catch((error: unknown) => {
    throw asTrainingUserError(error);
  });
  if (plan.action === 'train') {
    if (plan.replaced) process.stderr.write(`run ${plan.replaced.id} (${plan.replaced.name}) saved no checkpoint to continue from: deleted, and trained again from the start (--resume-existing)\n`);
    return false;
  }
  if (plan.action === 'completed') {
    if (plan.marked) {
      process.stdout.write(`run ${plan.run.id} (${plan.run.name}) has the checkpoint of its last iteration; its trainer ended (${plan.run.status}) before marking it completed: marked completed, nothing to train\n`);
      return true;
    }
    process.stdout.write(`run ${plan.run.id} (${plan.run.name}) completed already; nothing to train\n`);
    return true;
  }
  const { resumeFromCheckpoint } = await import('../services/training');
  await stampBundle(store.dataDir);
  process.stderr.write(`continuing run ${plan.run.id} (${plan.run.name}) from its latest checkpoint (--resume-existing)\n`);
  await runWithProgress(
    (hooks) => resumeFromCheckpoint(store, String(plan.run.id), hooks),
    (runId) => validationSummary(store, runId),
  );
  return true;
}

/** Training in a run bundle (a cluster task): the manifest records this host and the Slurm job. */
async function stampBundle(dataDir: string): Promise<void> {
  const { stampManifest } = await import('../bundle/manifest');
  stampManifest(dataDir);
}

type Hooks = {
  log: (line: string) => void;
  onIteration: (iteration: number, total: number, metrics: Record<string, number>) => void;
  shouldStop: () => boolean;
  onRunCreated: (run: { id: number; name: string }) => void;
};

async function runWithProgress(
  start: (hooks: Hooks) => Promise<{ run: { id: number; name: string; status: string; config?: unknown }; result: { lastIteration: number } }>,
  summarize?: (runId: number) => string[],
): Promise<void> {
  const progress = createProgressReporter(process.stderr);
  // Started by the app or `serve`: the run id, progress and stop requests go over this channel.
  const host = connectToHost();
  let runId = 0;
  let stopRequested = false;
  let interruptedByUser = false;
  const onCtrlC = () => {
    // Before the run exists (a config still loading, a model folder being read) there is nothing
    // to stop cleanly and nothing to keep: end now, as Ctrl-C ends any command.
    if (runId === 0 && !host) process.exit(INTERRUPTED_EXIT_CODE);
    interruptedByUser = true;
    onSigint();
  };
  const onSigint = () => {
    if (stopRequested) process.exit(INTERRUPTED_EXIT_CODE);
    stopRequested = true;
    progress.note('stopping after this iteration (a checkpoint will be saved); press Ctrl-C again to abort');
  };
  host?.onMessage(() => {
    if (!stopRequested) onSigint();
  });
  // SIGTERM too: the desktop app stops a trainer in a utilityProcess with kill(), a SIGTERM.
  process.on('SIGINT', onCtrlC);
  process.on('SIGTERM', onSigint);
  let failed = false;
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
    const stored = (outcome.run as { config?: { trainer?: { total_training_steps?: number }; expert_iteration?: { rounds?: number } } }).config;
    const before = (stored?.expert_iteration?.rounds ?? 0) > 0 ? 'the warm start and expert iteration' : 'the warm start';
    const warmOnly = stored?.trainer?.total_training_steps === 0 ? ` (${before} alone: trainer.total_training_steps is 0)` : '';
    process.stdout.write(`run ${outcome.run.id} (${outcome.run.name}) ${outcome.run.status} at iteration ${outcome.result.lastIteration}${warmOnly}\n`);
    for (const line of summarize?.(outcome.run.id) ?? []) process.stdout.write(`  ${line}\n`);
    if (interruptedByUser && outcome.run.status === 'stopped') noteInterrupted();
  } catch (error) {
    failed = true;
    progress.finish();
    const userError = asTrainingUserError(error);
    const text = userError instanceof Error ? userError.message : String(userError);
    host?.send({ type: 'failed', message: userError instanceof UserError ? text : `internal error: ${text}` });
    throw userError;
  } finally {
    host?.close();
    process.off('SIGINT', onCtrlC);
    process.off('SIGTERM', onSigint);
    const { releaseBackend } = await import('../../trainer-core/compute');
    // After an out-of-memory the backend may fail to release as well; the run's own error is the
    // one to show, so a failure here is only thrown when the run succeeded.
    await releaseBackend().catch((releaseError: unknown) => {
      if (!failed) throw releaseError;
    });
  }
}
