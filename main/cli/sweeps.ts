// `turnlab sweeps [sweep]`: the sweeps of the data folder, and one sweep's table by setting, as the
// sweep printed when it ended (W&B's sweep page); gathering them is preload/sweeps.ts's, shared
// with the Runs view.
import type { Command } from 'commander';
import { SWEEP_TAG_PREFIX, sweepTag, type GridAxis } from '../../preload/sweep-plan';
import { leftOutSettings, settingLabel, sweepAxes, sweepShape, sweepStatus, sweepsOf, type Sweep } from '../../preload/sweeps';
import type { Store } from '../store/db';
import { ClusterJobs } from '../cluster/jobs';
import { markAbandonedRuns } from '../services/run-owner';
import { UserError } from './errors';
import { formatTime, renderTable } from './format';
import { formatMeanStd, meanStd } from './mean-std';
import { settingResults, sweepSummary, type SettingResult } from './sweep-summary';
import { noDataYet, withStore } from './with-store';

function sweepResults(store: Store, sweep: Sweep): { axes: GridAxis[]; results: SettingResult[] } {
  const { axes, values } = sweepAxes(sweep);
  const results = settingResults(store, sweep.groups.map((g, i) => ({ group: g.name, values: values[i], runIds: g.runs.map((r) => r.id) })));
  return { axes, results };
}

/** The setting whose seeds' final validation success is highest on average, with that mean ± std. */
function bestSetting(axes: readonly GridAxis[], results: readonly SettingResult[]): { setting: string; final: string } {
  const { rows } = sweepSummary(axes, results);
  const best = results.find((r) => r.group === rows[0]?.at(-1));
  const final = best ? meanStd(best.final) : null;
  if (!best || final === null) return { setting: '-', final: '-' };
  const setting = settingLabel(axes, best.values, best.group);
  return { setting, final: formatMeanStd(final) };
}

export function register(program: Command): void {
  program
    .command('sweeps')
    .description("the sweeps (turnlab sweep, the New run form's grid): settings, seeds, how far, the best setting; with a sweep's name, its table by setting")
    .argument('[sweep]', 'a sweep name (or its tag, sweep:<name>) to show its table by setting, best first')
    .option('--json', 'print JSON instead of a table')
    .action(async (name: string | undefined, options: { json?: boolean }, command: Command) => {
      await withStore(
        command,
        (store) => {
          markAbandonedRuns(store);
          const sweeps = sweepsOf(store.runs.list(), store.sweepPlans.list());
          const jobs = new ClusterJobs(store).list();
          const status = (sweep: Sweep) => sweepStatus(sweep, jobs.filter((j) => j.sweep === sweep.name));
          if (name !== undefined) {
            const wanted = name.startsWith(SWEEP_TAG_PREFIX) ? name.slice(SWEEP_TAG_PREFIX.length) : name;
            const sweep = sweeps.find((s) => s.name === wanted);
            if (!sweep) {
              const known = sweeps.map((s) => s.name);
              throw new UserError(`no sweep named ${wanted} in ${store.dataDir}${known.length > 0 ? `; the sweeps are: ${known.slice(0, 5).join(', ')}${known.length > 5 ? ', ...' : ''} (turnlab sweeps)` : ' (turnlab sweep starts one)'}`);
            }
            const { axes, results } = sweepResults(store, sweep);
            if (options.json) {
              const settings = results.map((r) => ({ group: r.group, setting: Object.fromEntries(axes.map((a, i) => [a.key, r.values[i]])), finalValSuccess: r.final, bestValSuccess: r.best, final: meanStd(r.final) }));
              // Combinations no config accepted, as the plan's axes name them (the table's axes leave out those of one value).
              const planAxes = sweep.plan?.axes ?? [];
              const skipped = (sweep.plan?.skipped ?? []).map((values) => Object.fromEntries(planAxes.map((a, i) => [a.key, values[i]])));
              process.stdout.write(`${JSON.stringify({ sweep: sweep.name, tag: sweepTag(sweep.name), axes: axes.map((a) => a.key), settings, skipped }, null, 2)}\n`);
              return;
            }
            const { head, rows } = sweepSummary(axes, results);
            process.stdout.write(`sweep ${sweep.name}: ${sweepShape(sweep)}, ${status(sweep)}; final validation success by setting, best first (its runs: turnlab runs --where tag=${sweepTag(sweep.name)})\n${renderTable(head, rows)}\n`);
            const leftOut = leftOutSettings(sweep);
            if (leftOut.length > 0) process.stdout.write(`left out, as no config accepts them: ${leftOut.join('; ')}\n`);
            return;
          }
          const listed = sweeps.map((sweep) => {
            const { axes, results } = sweepResults(store, sweep);
            return { sweep, axes, best: bestSetting(axes, results) };
          });
          if (options.json) {
            const rows = listed.map(({ sweep, axes, best }) => ({ sweep: sweep.name, tag: sweepTag(sweep.name), createdAt: sweep.createdAt, axes: axes.map((a) => a.key), groups: sweep.groups.map((g) => ({ name: g.name, runs: g.runs.map((r) => r.id) })), status: status(sweep), best }));
            process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
            return;
          }
          if (listed.length === 0) {
            process.stdout.write(`no sweeps in ${store.dataDir} (turnlab sweep --grid key=a,b starts one)\n`);
            return;
          }
          const rows = listed.map(({ sweep, axes, best }) => [sweep.name, formatTime(sweep.createdAt), sweepShape(sweep), axes.map((a) => a.key).join(', ') || '-', status(sweep), best.setting, best.final]);
          process.stdout.write(`${renderTable(['sweep', 'started', 'grid', 'keys swept', 'status', 'best setting', 'final val success (mean ± std)'], rows)}\n`);
        },
        { reader: true, whenNone: (dir) => void process.stdout.write(options.json ? '[]\n' : `${noDataYet(dir, 'sweeps')}\n`) },
      );
    });
}
