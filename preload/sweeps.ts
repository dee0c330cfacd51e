// Sweeps among the runs: the seed groups whose runs carry one sweep's tag (`sweep:<name>`), and the
// grid read back from their configs. Pure, so `turnlab sweeps` and the Runs view's seed groups
// gather and describe a sweep the same way. The grid is not stored apart from the runs: a
// setting's values are the keys on which the sweep's seed groups' configs differ.
import { configTable } from './config-diff';
import type { RunDto } from './contract';
import { runGroupsOf, statusLine, type GroupMember, type RunGroup } from './seed-groups';
import { sweepOf, type GridAxis } from './sweep-plan';

/** What a sweep needs of each of its runs (the Runs table's rows carry it). */
export type SweepMember = GroupMember & Pick<RunDto, 'createdAt' | 'config'>;

export interface Sweep<R extends SweepMember = SweepMember> {
  name: string;
  /** Its seed groups in the order they were made. */
  groups: Array<RunGroup & { runs: R[] }>;
  /** When its first run was created (ms since the epoch). */
  createdAt: number;
}

/** Keys every seed of a setting has of its own, not a setting of the grid. */
const PER_RUN_KEYS = new Set(['trainer.seed']);

/** The sweeps of these runs, newest first. */
export function sweepsOf<R extends SweepMember>(runs: readonly R[]): Array<Sweep<R>> {
  const byName = new Map<string, R[]>();
  for (const run of runs) {
    const name = sweepOf(run.tags);
    if (name !== null) byName.set(name, [...(byName.get(name) ?? []), run]);
  }
  const sweeps = [...byName.entries()].map(([name, members]) => ({
    name,
    groups: runGroupsOf(members).reverse() as Array<RunGroup & { runs: R[] }>,
    createdAt: Math.min(...members.map((r) => r.createdAt)),
  }));
  return sweeps.sort((a, b) => b.createdAt - a.createdAt || a.name.localeCompare(b.name));
}

/** The grid's axes as the configs show them (each key on which the seed groups differ, with its values), and each group's values. */
export function sweepAxes(sweep: Sweep): { axes: GridAxis[]; values: string[][] } {
  const configs = sweep.groups.map((g) => g.runs[0]?.config ?? {});
  const rows = sweep.groups.length < 2 ? [] : configTable(configs, true).filter((row) => !PER_RUN_KEYS.has(row.key));
  return {
    axes: rows.map((row) => ({ key: row.key, values: [...new Set(row.values)] })),
    values: sweep.groups.map((_, i) => rows.map((row) => row.values[i])),
  };
}

/** "3 settings x 2 seeds", or "3 settings, 5 runs" where the groups hold different counts. */
export function sweepShape(sweep: Sweep): string {
  const counts = new Set(sweep.groups.map((g) => g.runs.length));
  const settings = `${sweep.groups.length} setting${sweep.groups.length === 1 ? '' : 's'}`;
  if (counts.size === 1) {
    const [seeds] = counts;
    return `${settings} x ${seeds} seed${seeds === 1 ? '' : 's'}`;
  }
  return `${settings}, ${sweep.groups.reduce((n, g) => n + g.runs.length, 0)} runs`;
}

/** A setting as its axes' last key parts and values: `lr=0.001 gamma=0.9`; the group's name without axes. */
export function settingLabel(axes: readonly GridAxis[], values: readonly string[], group: string): string {
  return axes.length === 0 ? group : axes.map((a, i) => `${a.key.split('.').pop()}=${values[i]}`).join(' ');
}

/** "6 completed, 2 running": how far the sweep's runs are. */
export function sweepStatus(sweep: Sweep): string {
  return statusLine({ runs: sweep.groups.flatMap((g) => g.runs), queued: [] });
}
