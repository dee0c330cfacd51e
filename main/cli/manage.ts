// Managing stored runs from a terminal, as the Runs view does with its buttons: stop a run that
// trains in another process here, delete runs, tag, rename and annotate them. A researcher on a
// server with only a shell (MLflow's `mlflow runs delete`, W&B's run.tags and run.notes) has
// the same verbs as the app.
import type { Command } from 'commander';
import type { Store } from '../store/db';
import { UserError } from './errors';
import { formatTags } from './format';
import { selectRuns, WHERE_OPTION } from './runs';
import { withStore } from './with-store';

/** The services' refusals (a run that trains, an unknown id) as the CLI's one-line errors. */
async function administering<T>(work: () => Promise<T> | T): Promise<T> {
  const { RunAdminError } = await import('../services/run-admin');
  try {
    return await work();
  } catch (error) {
    throw error instanceof RunAdminError ? new UserError(error.message) : error;
  }
}

const POLL_MS = 500;

/** Waits until no live process trains the run, then says how it ended. */
async function waitForEnd(store: Store, runId: number): Promise<string> {
  const { isHeld } = await import('../services/run-owner');
  for (;;) {
    const run = store.runs.processInfo(runId);
    if (!run || !isHeld(run)) return run?.status ?? 'deleted';
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** `turnlab stop --group NAME`: the group's queued seeds and its training runs, in whichever process. */
async function stopGroup(store: Store, group: string): Promise<number[]> {
  const { stopSeedGroup } = await import('../services/seed-groups');
  const result = await administering(() => stopSeedGroup(store, group));
  const seeds = result.cancelledSeeds;
  process.stdout.write(`seed group ${group}: ${seeds.length ? `seed${seeds.length === 1 ? '' : 's'} ${seeds.join(', ')} will not start` : 'no seed was waiting'}\n`);
  for (const run of result.stoppedRuns) process.stdout.write(`run ${run.runId} (${run.name}): ${stopLine(run.pid, !run.alreadyStopping)}\n`);
  return result.stoppedRuns.map((run) => run.runId);
}

function stopLine(pid: number | null, signalled: boolean): string {
  return signalled ? `asked process ${pid} to stop it after its iteration (a checkpoint is saved)` : `already stopping (process ${pid})`;
}

function registerStop(program: Command): void {
  program
    .command('stop')
    .description('stop runs that train in another process on this machine (a terminal, the app, serve): each ends its iteration, saves a checkpoint and ends stopped, as on Ctrl-C')
    .argument('[runs...]', 'run ids or unique run names')
    .option(WHERE_OPTION.flags, "stop the training runs that meet a condition, as `turnlab runs --where` lists them (e.g. 'status=running'); repeatable", WHERE_OPTION.collect, [] as string[])
    .option('--group <name>', 'stop a seed group (train --seeds, the New run form): its queued seeds never start, its training runs stop')
    .option('--wait', 'return once every run has stopped, printing how each ended')
    .action(async (refs: string[], options: { wait?: boolean; where?: string[]; group?: string }, command: Command) => {
      const [{ stopTrainingProcess }, { isHeld }] = await Promise.all([import('../services/stop-run'), import('../services/run-owner')]);
      const where = options.where ?? [];
      if (options.group !== undefined && (refs.length > 0 || where.length > 0)) throw new UserError('stop: name runs, select them with --where, or give --group, not several');
      await withStore(command, async (store) => {
        let stopped: number[];
        if (options.group !== undefined) {
          stopped = await stopGroup(store, options.group);
        } else {
          let ids = selectRuns(store, refs, false, where, 'stop');
          // A condition names runs that ended long ago as well: only those training now are meant.
          if (where.length > 0) {
            const matched = ids.length;
            ids = ids.filter((id) => {
              const run = store.runs.processInfo(id);
              return run !== undefined && isHeld(run);
            });
            if (ids.length === 0) throw new UserError(`none of the ${matched} run(s) matching --where is training; nothing to stop`);
          }
          const outcomes = await administering(() => ids.map((id) => stopTrainingProcess(store, id)));
          for (const o of outcomes) process.stdout.write(`run ${o.runId} (${o.name}): ${stopLine(o.pid, o.signalled)}\n`);
          stopped = outcomes.map((o) => o.runId);
        }
        if (!options.wait) return;
        for (const runId of stopped) process.stdout.write(`run ${runId} (${store.runs.get(runId)?.name ?? 'deleted'}) ${await waitForEnd(store, runId)}\n`);
      });
    });
}

function registerDelete(program: Command): void {
  program
    .command('delete')
    .description('delete runs with their metrics, episodes and checkpoints, for good (refused while a run trains); without --yes, lists what it would delete')
    .argument('[runs...]', 'run ids or unique run names')
    .option(WHERE_OPTION.flags, "delete the runs that meet a condition, as `turnlab runs --where` lists them (e.g. 'status=failed'); repeatable", WHERE_OPTION.collect, [] as string[])
    .option('--yes', 'delete them; without it nothing is deleted')
    .action(async (refs: string[], options: { where?: string[]; yes?: boolean }, command: Command) => {
      const { checkDeletable, deleteRuns } = await import('../services/run-admin');
      await withStore(command, async (store) => {
        const ids = selectRuns(store, refs, false, options.where ?? [], 'delete');
        const runs = ids.map((id) => store.runs.get(id)!);
        const listed = runs.map((run) => `${run.id} (${run.name}, ${run.status})`).join(', ');
        // Every run is checked before any is deleted, so a refusal leaves them all as they were.
        await administering(() => checkDeletable(store, ids, new Set()));
        // A fork keeps its own iterations; the parent's history its charts draw goes with the parent.
        const chosen = new Set(ids);
        const forks = store.runs.forksOf(ids).filter((run) => !chosen.has(run.id));
        const forkNote = forks.length ? `; ${forks.map((f) => `run ${f.id} (${f.name})`).join(', ')} forked from them keep${forks.length === 1 ? 's' : ''} only ${forks.length === 1 ? 'its' : 'their'} own iterations` : '';
        if (!options.yes) {
          throw new UserError(`would delete ${runs.length} run(s): ${listed}${forkNote}; nothing was deleted: add --yes to delete them for good`);
        }
        await administering(() => deleteRuns(store, ids, new Set(), (runId) => process.stdout.write(`deleted run ${runId} (${runs.find((run) => run.id === runId)!.name})\n`)));
      });
    });
}

function unchangedReason(options: { add?: string[]; remove?: string[] }): string {
  if (!options.remove?.length) return 'they had the tags already';
  return options.add?.length ? 'they had the tags added and lacked those removed' : 'they did not have the tags removed';
}

function registerEdits(program: Command): void {
  program
    .command('tag')
    .description("add or remove tags of runs (the Runs view's tag filter, --where 'tag=...'); every run's tags are checked before any changes")
    .argument('[runs...]', 'run ids or unique run names')
    .option(WHERE_OPTION.flags, "tag the runs that meet a condition, as `turnlab runs --where` lists them (e.g. 'algorithm.adv_estimator=gigpo'); repeatable", WHERE_OPTION.collect, [] as string[])
    .option('--add <tags...>', 'tags to add')
    .option('--remove <tags...>', 'tags to remove')
    .action(async (refs: string[], options: { add?: string[]; remove?: string[]; where?: string[] }, command: Command) => {
      if (!options.add?.length && !options.remove?.length) throw new UserError('tag: say what to change with --add TAG and/or --remove TAG');
      const { retagRuns } = await import('../services/run-admin');
      await withStore(command, async (store) => {
        const ids = selectRuns(store, refs, false, options.where ?? [], 'tag');
        const { runs, changed } = await administering(() => retagRuns(store, ids, { add: options.add ?? [], remove: options.remove ?? [] }));
        for (const run of runs) process.stdout.write(`run ${run.id} (${run.name}): ${run.tags.length ? formatTags(run.tags) : 'no tags'}\n`);
        // A typo in --remove reads as a success otherwise.
        if (changed < runs.length) process.stdout.write(`${runs.length - changed} of ${runs.length} run(s) unchanged: ${unchangedReason(options)}\n`);
      });
    });
  program
    .command('rename')
    .description('rename a run')
    .argument('<run>', 'run id or unique run name')
    .argument('<name>', 'the new name')
    .action(async (ref: string, name: string, _options: unknown, command: Command) => {
      const { editRun } = await import('../services/run-admin');
      await withStore(command, async (store) => {
        const run = store.runs.resolve(ref);
        const edited = await administering(() => editRun(store, run.id, { name }));
        process.stdout.write(`run ${edited.id} renamed from ${run.name} to ${edited.name}\n`);
      });
    });
  program
    .command('note')
    .description("set a run's notes (shown under its name in the Runs view and by turnlab show; an empty text clears them)")
    .argument('<run>', 'run id or unique run name')
    .argument('<text>', 'the notes')
    .action(async (ref: string, text: string, _options: unknown, command: Command) => {
      const { editRun } = await import('../services/run-admin');
      await withStore(command, async (store) => {
        const run = store.runs.resolve(ref);
        await administering(() => editRun(store, run.id, { notes: text }));
        process.stdout.write(`run ${run.id} (${run.name}): notes ${text.trim() ? 'set' : 'cleared'}\n`);
      });
    });
}

export function register(program: Command): void {
  registerStop(program);
  registerDelete(program);
  registerEdits(program);
}
