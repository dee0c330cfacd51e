import type { Command } from 'commander';
import type { RunSummary } from '../store/types';
import { formatTime, renderTable } from './format';
import { markAbandonedRuns } from '../services/run-owner';
import { withStore } from './with-store';

function successText(value: number | null): string {
  return value === null ? '-' : `${(value * 100).toFixed(1)}%`;
}

export function runsTable(runs: RunSummary[]): string {
  return renderTable(
    ['id', 'name', 'status', 'env', 'algorithm', 'iterations', 'best val success', 'created'],
    runs.map((run) => [
      run.id,
      run.name,
      run.status,
      run.envTags.join(', ') || '-',
      run.algorithm,
      run.iterations ?? '-',
      successText(run.bestValSuccess),
      formatTime(run.createdAt),
    ]),
  );
}

export function register(program: Command): void {
  program
    .command('runs')
    .description('list the runs of the data folder')
    .option('--json', 'print a JSON array instead of a table')
    .action(async (options: { json?: boolean }, command: Command) => {
      await withStore(command, async (store) => {
        // A run whose trainer is gone reads `interrupted`, decided as the app decides it.
        markAbandonedRuns(store);
        const runs = store.runs.list();
        if (options.json) process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
        else if (runs.length === 0) process.stdout.write(`no runs yet in ${store.dataDir}\n`);
        else process.stdout.write(`${runsTable(runs)}\n`);
        if (options.json) return;
        // Runs of sweeps sent to a cluster, with the scheduler's state as last polled (turnlab jobs polls).
        const { ClusterJobs } = await import('../cluster/jobs');
        const jobs = new ClusterJobs(store).list();
        if (jobs.length > 0) {
          const { jobsTable } = await import('./sweep');
          process.stdout.write(`cluster jobs (turnlab jobs polls the scheduler)\n${jobsTable(jobs)}\n`);
        }
      }, { reader: true });
    });
}
