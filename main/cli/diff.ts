// `turnlab diff`: the config keys on which runs differ, side by side (MLflow's "show diff only",
// the Compare view's config table), so two runs of a sweep can be told apart from a terminal.
import type { Command } from 'commander';
import { configTable, flattenConfig } from '../../preload/config-diff';
import { renderTable } from './format';
import { UserError } from './errors';
import { withStore } from './with-store';

interface DiffOptions {
  all?: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('diff')
    .description('print the config keys on which runs differ, one column a run (with --all, every key)')
    .argument('<runs...>', 'two or more run ids or unique run names')
    .option('--all', 'every key, the ones all runs agree on too')
    .option('--json', 'print {runs, rows: [{key, values, differs}]} as JSON, values as stored (null where a run lacks the key), in the order of the runs')
    .action(async (refs: string[], options: DiffOptions, command: Command) => {
      await withStore(command, (store) => {
        const runs = [...new Map(refs.map((ref) => store.runs.resolve(ref)).map((run) => [run.id, run])).values()];
        if (runs.length < 2) throw new UserError(`diff needs two or more runs, got ${runs.length === 1 ? `only run ${runs[0].id}` : 'none'}`);
        const rows = configTable(runs.map((run) => run.config), options.all !== true);
        if (options.json) {
          const flat = runs.map((run) => flattenConfig(run.config));
          const raw = rows.map((row) => ({ key: row.key, values: flat.map((f) => (Object.hasOwn(f, row.key) ? f[row.key] : null)), differs: row.differs }));
          process.stdout.write(`${JSON.stringify({ runs: runs.map((run) => ({ id: run.id, name: run.name })), rows: raw }, null, 2)}\n`);
          return;
        }
        const names = runs.map((run) => `${run.id} ${run.name}`);
        if (rows.length === 0) {
          process.stdout.write(`the configs of runs ${runs.map((run) => run.id).join(', ')} are the same\n`);
          return;
        }
        process.stdout.write(`${renderTable(['key', ...names], rows.map((row) => [row.key, ...row.values]))}\n`);
      }, { reader: true });
    });
}
