// Sweeps among the runs: the seed groups whose runs carry one sweep's tag (`sweep:<name>`), and the
// grid: as the sweep stored it when it started (its plan, migration 0011), else read back from the
// groups' configs (a setting's values are the keys on which they differ; sweeps from before plans
// were stored, or imported). Pure, so `turnlab sweeps` and the Runs view's seed groups gather and
// describe a sweep the same way.
import { configTable, flattenConfig, formatConfigValue } from './config-diff';
import { ENDED_JOB_STATES, type RunDto, type SweepPlanDto } from './contract';
import { runGroupsOf, statusLine, type GroupMember, type RunGroup } from './seed-groups';
import { sweepOf, valuesLabel, type GridAxis } from './sweep-plan';

/** What a sweep needs of each of its runs (the Runs table's rows carry it). */
export type SweepMember = GroupMember & Pick<RunDto, 'createdAt' | 'config'>;

export interface Sweep<R extends SweepMember = SweepMember> {
  name: string;
  /** Its seed groups in the order they were made. */
  groups: Array<RunGroup & { runs: R[] }>;
  /** When its first run was created (ms since the epoch). */
  createdAt: number;
  /** What it was asked to train, where it was stored. */
  plan?: SweepPlan;
}

/** A stored plan as a sweep reads it; where and when it was sent, where the store has them. */
type SweepPlan = Pick<SweepPlanDto, 'axes' | 'seeds'> & Partial<Pick<SweepPlanDto, 'executor' | 'createdAt' | 'skipped'>>;

/** Keys every seed of a setting has of its own, not a setting of the grid. */
const PER_RUN_KEYS = new Set(['trainer.seed']);

/**
 * The sweeps of these runs, newest first; a Slurm sweep none of whose tasks is imported yet is
 * one too, from its plan alone, so it shows from the moment it is submitted.
 */
export function sweepsOf<R extends SweepMember>(runs: readonly R[], plans: ReadonlyArray<SweepPlan & Pick<SweepPlanDto, 'name'>> = []): Array<Sweep<R>> {
  const planOf = new Map(plans.map((p): [string, SweepPlan] => [p.name, { axes: p.axes, seeds: p.seeds, executor: p.executor, createdAt: p.createdAt, skipped: p.skipped }]));
  const byName = new Map<string, R[]>();
  for (const run of runs) {
    const name = sweepOf(run.tags);
    if (name !== null) byName.set(name, [...(byName.get(name) ?? []), run]);
  }
  const sweeps = [...byName.entries()].map(([name, members]) => ({
    name,
    groups: runGroupsOf(members).reverse() as Array<RunGroup & { runs: R[] }>,
    createdAt: Math.min(...members.map((r) => r.createdAt)),
    ...(planOf.has(name) ? { plan: planOf.get(name)! } : {}),
  }));
  for (const plan of plans) {
    if (plan.executor !== 'slurm' || byName.has(plan.name)) continue;
    sweeps.push({ name: plan.name, groups: [], createdAt: plan.createdAt ?? 0, plan: planOf.get(plan.name)! });
  }
  return sweeps.sort((a, b) => b.createdAt - a.createdAt || a.name.localeCompare(b.name));
}

/** The grid's axes as the configs show them (each key on which the seed groups differ, with its values), and each group's values. */
export function sweepAxes(sweep: Sweep): { axes: GridAxis[]; values: string[][] } {
  const configs = sweep.groups.map((g) => g.runs[0]?.config ?? {});
  if (sweep.plan) {
    // Axes of one value are settings of every run, not of the grid, as --grid's labels leave them out.
    const axes = sweep.plan.axes.filter((a) => a.values.length > 1);
    const flat = configs.map((c) => flattenConfig(c));
    return { axes: axes.map((a) => ({ key: a.key, values: [...a.values] })), values: flat.map((f) => axes.map((a) => formatConfigValue(f[a.key]))) };
  }
  const rows = sweep.groups.length < 2 ? [] : configTable(configs, true).filter((row) => !PER_RUN_KEYS.has(row.key));
  return {
    axes: rows.map((row) => ({ key: row.key, values: [...new Set(row.values)] })),
    values: sweep.groups.map((_, i) => rows.map((row) => row.values[i])),
  };
}

/** "3 settings x 2 seeds", or "3 settings, 5 runs" where the groups hold different counts. */
export function sweepShape(sweep: Sweep): string {
  if (sweep.plan) {
    const skipped = sweep.plan.skipped?.length ?? 0;
    const planned = sweep.plan.axes.reduce((n, a) => n * a.values.length, 1) - skipped;
    const seeds = `${sweep.plan.seeds.length} seed${sweep.plan.seeds.length === 1 ? '' : 's'}`;
    const started = sweep.groups.length;
    // Combinations no config accepted were never part of what it trains; said so a reader of a 2 x 2 grid is not left counting.
    const left = skipped > 0 ? `, ${skipped} combination${skipped === 1 ? '' : 's'} left out` : '';
    // None started yet (a Slurm sweep before its first import): the status says so.
    return started > 0 && started < planned ? `${started} of ${planned} settings started x ${seeds}${left}` : `${planned} setting${planned === 1 ? '' : 's'} x ${seeds}${left}`;
  }
  const counts = new Set(sweep.groups.map((g) => g.runs.length));
  const settings = `${sweep.groups.length} setting${sweep.groups.length === 1 ? '' : 's'}`;
  if (counts.size === 1) {
    const [seeds] = counts;
    return `${settings} x ${seeds} seed${seeds === 1 ? '' : 's'}`;
  }
  return `${settings}, ${sweep.groups.reduce((n, g) => n + g.runs.length, 0)} runs`;
}

/** The combinations the sweep left out as no config accepted them, each `adv_estimator=grpo bi_level_gae=true`. */
export function leftOutSettings(sweep: Sweep): string[] {
  const axes = sweep.plan?.axes ?? [];
  return (sweep.plan?.skipped ?? []).map((values) => valuesLabel(axes, values));
}

/** A setting as its axes' last key parts and values: `lr=0.001 gamma=0.9`; the group's name without axes. */
export function settingLabel(axes: readonly GridAxis[], values: readonly string[], group: string): string {
  return axes.length === 0 ? group : valuesLabel(axes, values);
}

/**
 * "6 completed, 2 running": how far the sweep's runs are. `tasks`, where the caller has them, are
 * the states of its Slurm tasks: a sweep whose tasks all ended before any wrote a run (a config
 * gone by the time they ran) will never be imported, and says so.
 */
export function sweepStatus(sweep: Sweep, tasks: ReadonlyArray<{ state: string }> = []): string {
  if (sweep.groups.length === 0 && tasks.length > 0 && tasks.every((t) => (ENDED_JOB_STATES as ReadonlySet<string>).has(t.state))) {
    const counts = new Map<string, number>();
    for (const t of tasks) counts.set(t.state, (counts.get(t.state) ?? 0) + 1);
    const states = [...counts].map(([state, n]) => `${n} ${state}`).join(', ');
    return `${tasks.length === 1 ? 'its task' : `its ${tasks.length} tasks`} ended without a run (${states}; turnlab jobs says why)`;
  }
  if (sweep.groups.length === 0) return sweep.plan?.executor === 'slurm' ? 'sent to Slurm, no task imported yet (turnlab jobs polls and imports)' : 'no run yet';
  return statusLine({ runs: sweep.groups.flatMap((g) => g.runs), queued: [], cancelled: [] });
}
