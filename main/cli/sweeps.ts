// `turnlab sweeps [sweep]`: the sweeps of the data folder, and one sweep's table by setting, as the
// sweep printed when it ended (W&B's sweep page). A sweep's runs carry its tag `sweep:<name>` and
// their seed group's; the grid is not stored, so a setting's values are read back from its runs'
// configs: the keys on which the sweep's seed groups differ.
import type { Command } from 'commander';
import { configTable } from '../../preload/config-diff';
import { runGroupsOf, statusLine, type RunGroup } from '../../preload/seed-groups';
import { sweepOf, sweepTag, type GridAxis } from '../../preload/sweep-plan';
import type { Store } from '../store/db';
import type { RunSummary } from '../store/types';
import { markAbandonedRuns } from '../services/run-owner';
import { UserError } from './errors';
import { renderTable } from './format';
import { meanStd } from './mean-std';
import { settingResults, sweepSummary, type SettingResult } from './sweep-summary';
import { withStore } from './with-store';

/** Keys every seed of a setting has of its own, not a setting of the grid. */
const PER_RUN_KEYS = new Set(['trainer.seed']);

export interface Sweep {
  name: string;
  groups: RunGroup[];
  /** When its first run was created (ms since the epoch). */
  createdAt: number;
}

/** The sweeps of these runs, newest first, each with its seed groups in the order they were made. */
export function sweepsOf(runs: readonly RunSummary[]): Sweep[] {
  const byName = new Map<string, RunSummary[]>();
  for (const run of runs) {
    const name = sweepOf(run.tags);
    if (name !== null) byName.set(name, [...(byName.get(name) ?? []), run]);
  }
  const sweeps = [...byName.entries()].map(([name, members]) => ({
    name,
    groups: runGroupsOf(members).reverse(),
    createdAt: Math.min(...members.map((r) => r.createdAt)),
  }));
  return sweeps.sort((a, b) => b.createdAt - a.createdAt || a.name.localeCompare(b.name));
}

/** The grid's axes as the stored configs show them: each key on which the seed groups differ, with its values. */
export function sweepAxes(store: Store, sweep: Sweep): { axes: GridAxis[]; values: string[][] } {
  const configs = sweep.groups.map((g) => store.runs.get(g.runs[0].id)?.config ?? {});
  const rows = sweep.groups.length < 2 ? [] : configTable(configs, true).filter((row) => !PER_RUN_KEYS.has(row.key));
  const axes = rows.map((row) => ({ key: row.key, values: [...new Set(row.values)] }));
  const values = sweep.groups.map((_, i) => rows.map((row) => row.values[i]));
  return { axes, values };
}

function sweepResults(store: Store, sweep: Sweep): { axes: GridAxis[]; results: SettingResult[] } {
  const { axes, values } = sweepAxes(store, sweep);
  const results = settingResults(store, sweep.groups.map((g, i) => ({ group: g.name, values: values[i], runIds: g.runs.map((r) => r.id) })));
  return { axes, results };
}

/** "3 settings x 2 seeds" or, where the groups hold different counts, "3 settings, 5 runs". */
function shape(sweep: Sweep): string {
  const seeds = new Set(sweep.groups.map((g) => g.runs.length));
  const settings = `${sweep.groups.length} setting${sweep.groups.length === 1 ? '' : 's'}`;
  if (seeds.size === 1) return `${settings} x ${[...seeds][0]} seed${[...seeds][0] === 1 ? '' : 's'}`;
  return `${settings}, ${sweep.groups.reduce((n, g) => n + g.runs.length, 0)} runs`;
}

function statusOf(sweep: Sweep): string {
  return statusLine({ name: sweep.name, tag: '', runs: sweep.groups.flatMap((g) => g.runs), queued: [] });
}

/** The setting whose seeds' final validation success is highest on average, with that mean ± std. */
function bestSetting(axes: readonly GridAxis[], results: readonly SettingResult[]): { setting: string; final: string } {
  const { rows } = sweepSummary(axes, results);
  const best = results.find((r) => r.group === rows[0]?.at(-1));
  const final = best ? meanStd(best.final) : null;
  if (!best || final === null) return { setting: '-', final: '-' };
  const setting = axes.length === 0 ? best.group : axes.map((a, i) => `${a.key.split('.').pop()}=${best.values[i]}`).join(' ');
  return { setting, final: `${final.mean.toFixed(3)} ± ${final.std.toFixed(3)}` };
}

function dateText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
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
          const sweeps = sweepsOf(store.runs.list());
          if (name !== undefined) {
            const wanted = name.startsWith('sweep:') ? name.slice('sweep:'.length) : name;
            const sweep = sweeps.find((s) => s.name === wanted);
            if (!sweep) {
              const known = sweeps.map((s) => s.name);
              throw new UserError(`no sweep named ${wanted} in ${store.dataDir}${known.length > 0 ? `; the sweeps are: ${known.slice(0, 5).join(', ')}${known.length > 5 ? ', ...' : ''} (turnlab sweeps)` : ' (turnlab sweep starts one)'}`);
            }
            const { axes, results } = sweepResults(store, sweep);
            if (options.json) {
              const settings = results.map((r) => ({ group: r.group, setting: Object.fromEntries(axes.map((a, i) => [a.key, r.values[i]])), finalValSuccess: r.final, bestValSuccess: r.best, final: meanStd(r.final) }));
              process.stdout.write(`${JSON.stringify({ sweep: sweep.name, tag: sweepTag(sweep.name), axes: axes.map((a) => a.key), settings }, null, 2)}\n`);
              return;
            }
            const { head, rows } = sweepSummary(axes, results);
            process.stdout.write(`sweep ${sweep.name}: ${shape(sweep)}, ${statusOf(sweep)}; final validation success by setting, best first (its runs: turnlab runs --where tag=${sweepTag(sweep.name)})\n${renderTable(head, rows)}\n`);
            return;
          }
          const listed = sweeps.map((sweep) => {
            const { axes, results } = sweepResults(store, sweep);
            return { sweep, axes, best: bestSetting(axes, results) };
          });
          if (options.json) {
            const rows = listed.map(({ sweep, axes, best }) => ({ sweep: sweep.name, tag: sweepTag(sweep.name), createdAt: sweep.createdAt, axes: axes.map((a) => a.key), groups: sweep.groups.map((g) => ({ name: g.name, runs: g.runs.map((r) => r.id) })), status: statusOf(sweep), best }));
            process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
            return;
          }
          if (listed.length === 0) {
            process.stdout.write(`no sweeps in ${store.dataDir} (turnlab sweep --grid key=a,b starts one)\n`);
            return;
          }
          const rows = listed.map(({ sweep, axes, best }) => [sweep.name, dateText(sweep.createdAt), shape(sweep), axes.map((a) => a.key).join(', ') || '-', statusOf(sweep), best.setting, best.final]);
          process.stdout.write(`${renderTable(['sweep', 'started', 'grid', 'keys swept', 'status', 'best setting', 'final val success (mean ± std)'], rows)}\n`);
        },
        { reader: true },
      );
    });
}
