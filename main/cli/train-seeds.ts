import { fileURLToPath } from 'node:url';
import type { Store } from '../store/db';
import type { SeedRunOutcome } from '../trainer-host/run-manager';
import { INTERRUPTED_EXIT_CODE, noteInterrupted, UserError } from './errors';
import { renderTable } from './format';
import { progressLine } from './progress';

export interface SeedGroupOptions {
  configPath: string;
  overrides: string[];
  name?: string;
  seeds: number[];
  concurrency?: number;
  /** More tags for every run (a sweep's). */
  tags?: string[];
}

/**
 * `turnlab train --seeds`: the group's runs train as `turnlab train` child processes queued by
 * the run manager, exactly as the workbench starts them; this process prints each run's
 * progress as a line naming its seed, and a summary table once all have ended; resolves with
 * the group's name (fresh: `name#2` when taken) and each run's outcome.
 */
export async function trainSeedGroup(store: Store, options: SeedGroupOptions): Promise<{ group: string; outcomes: SeedRunOutcome[]; stopped: boolean }> {
  const [{ RunManager }, { nodeTrainerLauncher }, { defaultConcurrency }] = await Promise.all([
    import('../trainer-host/run-manager'),
    import('../trainer-host/trainer-process'),
    import('../trainer-host/work-queue'),
  ]);
  const manager = new RunManager(
    store,
    nodeTrainerLauncher({ execPath: process.execPath, binPath: fileURLToPath(new URL('../../bin/turnlab.js', import.meta.url)), env: process.env }),
  );
  const concurrency = options.concurrency ?? defaultConcurrency();
  const seedOf = new Map<number, number>();
  // Set on Ctrl-C or SIGTERM here; a stop from another process reaches the group through the queue.
  let stopping = false;
  const out = process.stderr;
  manager.onProgress((m) => out.write(`[seed ${seedOf.get(m.runId) ?? '?'} run ${m.runId}] ${progressLine(m.iteration, m.total, m.metrics)}\n`));
  const group = manager.startSeedGroup(
    { configPath: options.configPath, overrides: options.overrides, name: options.name, seeds: options.seeds, tags: options.tags },
    {
      concurrency,
      onRunCreated: (seed, runId, name) => {
        seedOf.set(runId, seed);
        out.write(`[seed ${seed} run ${runId}] run ${runId} (${name}) started\n`);
      },
      onStopped: () => {
        if (!stopping) out.write('the group was stopped (turnlab stop --group, or the workbench): the seeds not yet started stay unstarted\n');
      },
    },
  );
  out.write(`seed group ${group.group}: ${options.seeds.length} runs (seeds ${options.seeds.join(', ')}), ${concurrency} at a time\n`);
  // Ctrl-C reaches the trainers too (one process group): each stops after its iteration with a
  // checkpoint by itself, and a stop message on top would read to them as a second Ctrl-C, an
  // abort. A SIGTERM reaches this process alone, so it asks the trainers to stop. Either way the
  // seeds not yet started stay unstarted.
  const onStop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(INTERRUPTED_EXIT_CODE);
    stopping = true;
    if (signal === 'SIGINT') noteInterrupted();
    out.write('stopping the group: running runs stop after this iteration; press Ctrl-C again to abort\n');
    group.cancel();
    if (signal === 'SIGTERM') manager.dispose();
  };
  process.on('SIGINT', onStop);
  process.on('SIGTERM', onStop);
  let outcomes: SeedRunOutcome[];
  try {
    outcomes = await group.done;
  } finally {
    process.off('SIGINT', onStop);
    process.off('SIGTERM', onStop);
  }
  process.stdout.write(`seed group ${group.group}\n${summaryTable(outcomes)}\n`);
  const refused = outcomes.find((o) => o.status === 'refused');
  if (refused) throw new UserError(`seed ${refused.seed}: ${refused.error ?? 'its trainer refused to start'}`);
  const failed = outcomes.filter((o) => o.status !== 'completed' && o.status !== 'stopped');
  if (failed.length > 0 && !stopping && !group.wasStopped()) {
    throw new UserError(`${failed.length} of ${outcomes.length} runs did not complete: ${failed.map((o) => `seed ${o.seed} ${o.status}`).join(', ')}`);
  }
  // Here (Ctrl-C, SIGTERM) or from elsewhere (turnlab stop, the workbench): a sweep goes no further.
  return { group: group.group, outcomes, stopped: stopping || group.wasStopped() || outcomes.some((o) => o.status === 'stopped') };
}

export function summaryTable(outcomes: readonly SeedRunOutcome[]): string {
  return renderTable(
    ['seed', 'run', 'status', 'final val success', 'wall time'],
    outcomes.map((o) => [
      o.seed,
      o.runId === null ? '-' : `${o.runId} (${o.name})`,
      o.status,
      o.finalValSuccess === null ? '-' : o.finalValSuccess.toFixed(3),
      // A seed that never started (the group stopped first) took no time of its own.
      o.runId === null ? '-' : formatDuration(o.wallMs),
    ]),
  );
}

function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
