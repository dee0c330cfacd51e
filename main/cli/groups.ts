// `turnlab groups`: the seed groups of the data folder as the Runs view lists them, with the
// seeds still waiting for a slot in whichever process queued them, so a group started under
// nohup can be followed (and stopped with `turnlab stop --group`) from another shell.
import type { Command } from 'commander';
import { meanBestValSuccess, runGroupsOf, seedsOf, statusLine } from '../../preload/seed-groups';
import { markAbandonedRuns } from '../services/run-owner';
import { renderTable } from './format';
import { successText } from './runs';
import { noDataYet, withStore } from './with-store';

export function register(program: Command): void {
  program
    .command('groups')
    .description('the seed groups (train --seeds, the New run form): seeds, how far each is, queued seeds, mean best validation success')
    .option('--json', 'print a JSON array instead of a table')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { queuedSeeds } = await import('../services/seed-groups');
      await withStore(
        command,
        (store) => {
          markAbandonedRuns(store);
          const groups = runGroupsOf(store.runs.list(), queuedSeeds(store));
          if (options.json) {
            const rows = groups.map((g) => ({ name: g.name, tag: g.tag, seeds: seedsOf(g), status: statusLine(g), meanBestValSuccess: meanBestValSuccess(g), runs: g.runs.map((r) => ({ id: r.id, name: r.name, seed: r.seed, status: r.status })), queued: g.queued.map((q) => ({ seed: q.seed, name: q.name })), cancelled: g.cancelled.map((q) => q.seed) }));
            process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
            return;
          }
          if (groups.length === 0) {
            process.stdout.write(`no seed groups in ${store.dataDir} (turnlab train --seeds N starts one)\n`);
            return;
          }
          const rows = groups.map((g) => [g.name, seedsOf(g).join(', '), statusLine(g), successText(meanBestValSuccess(g)), g.runs.map((r) => r.id).join(', ') || '-']);
          process.stdout.write(`${renderTable(['group', 'seeds', 'status', 'mean best val success', 'run ids'], rows)}\n`);
        },
        { reader: true, whenNone: (dir) => void process.stdout.write(options.json ? '[]\n' : `${noDataYet(dir, 'seed groups')}\n`) },
      );
    });
}
