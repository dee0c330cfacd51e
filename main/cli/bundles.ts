import type { Command } from 'commander';
import { renderTable } from './format';
import { UserError } from './errors';
import { withStore } from './with-store';

/** Bundle refusals (damaged, newer, not a bundle) are the user's to fix: one line, exit 2. */
async function asUser<T>(fn: () => Promise<T> | T): Promise<T> {
  const { BundleError } = await import('../bundle/manifest');
  try {
    return await fn();
  } catch (error) {
    if (error instanceof BundleError) throw new UserError(error.message);
    throw error;
  }
}

export function register(program: Command): void {
  program
    .command('export-run')
    .description('write a run (with the runs it was forked from) as a bundle folder that `turnlab import` reads')
    .argument('<run>', 'run id or name')
    .requiredOption('--bundle <dir>', 'new folder for the bundle')
    .action(async (ref: string, options: { bundle: string }, command: Command) => {
      await withStore(command, async (store) => {
        const { exportRunBundle } = await import('../bundle/export-bundle');
        const { dir, runs, iterations } = await asUser(() => exportRunBundle(store, ref, options.bundle));
        process.stdout.write(`wrote ${dir}: ${runs.map((r) => `run ${r.id} (${r.name})`).join(', ')}\n`);
        const { isHeld } = await import('../services/run-owner');
        for (const run of runs) {
          const info = store.runs.processInfo(run.id);
          if (!info || !isHeld(info)) continue;
          const iteration = iterations.get(run.id) ?? 0;
          process.stderr.write(
            `run ${run.id} (${run.name}) is still training: the bundle holds it ${iteration === 0 ? 'before its first iteration' : `up to iteration ${iteration}`} and imports as interrupted; export it again once it has ended for the whole run\n`,
          );
        }
      });
    });

  program
    .command('import')
    .description('bring run bundles (from export-run or a cluster sweep) into this data folder; importing again adds nothing')
    .argument('<folder...>', 'bundle folders')
    .action(async (folders: string[], _options: unknown, command: Command) => {
      await withStore(
        command,
        async (store) => {
          const { importBundles } = await import('../bundle/import-bundles');
          const outcomes = await asUser(() => importBundles(store, folders));
          process.stdout.write(
            `${renderTable(
              ['bundle', 'run', 'local run', 'import'],
              outcomes.map((o) => [o.bundle, `${o.sourceRunId} (${o.name})`, o.runId ?? '-', o.action === 'live' ? 'still training: not imported' : o.action === 'present' ? 'already here: not imported' : o.copyOf !== undefined ? `added: a changed copy of run ${o.copyOf} (both kept)` : o.action]),
            )}\n`,
          );
        },
        { create: true },
      );
    });
}
