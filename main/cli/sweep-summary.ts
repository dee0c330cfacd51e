// The table a sweep ends with: each setting's seeds side by side, final validation success as
// mean ± std over its seeds, best first, the comparison a sweep is run for (W&B's sweep table).
import type { GridAxis } from '../../preload/sweep-plan';
import type { Store } from '../store/db';
import { finalValSuccess } from '../trainer-host/seed-group';
import { renderTable } from './format';
import { formatMeanStd, meanStd } from './mean-std';

/** What each run of one setting reached; null where it logged no validation success. */
export interface SettingResult {
  group: string;
  /** The setting's value of each axis, in the order of the axes. */
  values: string[];
  final: Array<number | null>;
  best: Array<number | null>;
}

/** The value each axis takes in `overrides` (`key=value`, the last one wins, as in a config). */
export function axisValues(axes: readonly GridAxis[], overrides: readonly string[]): string[] {
  return axes.map((axis) => {
    const given = overrides.filter((o) => o.slice(0, o.indexOf('=')).replace(/^\+{1,2}/, '') === axis.key).pop();
    return given === undefined ? '-' : given.slice(given.indexOf('=') + 1);
  });
}

/** Each run of each group, read from the store: the mean success at its last validation, and its best. */
export function settingResults(store: Store, groups: ReadonlyArray<{ group: string; values: string[]; runIds: number[] }>): SettingResult[] {
  return groups.map(({ group, values, runIds }) => ({
    group,
    values,
    final: runIds.map((id) => finalValSuccess(store, id)),
    best: runIds.map((id) => store.runs.summary(id)?.bestValSuccess ?? null),
  }));
}

/** Head and rows, the best final mean first (settings without any last). */
export function sweepSummary(axes: readonly GridAxis[], results: readonly SettingResult[]): { head: string[]; rows: string[][] } {
  const head = [...axes.map((a) => a.key), 'seeds', 'final val success (mean ± std)', 'best val success (mean)', 'seed group'];
  const scored = results.map((r) => ({ r, final: meanStd(r.final), best: meanStd(r.best) }));
  scored.sort((a, b) => (b.final?.mean ?? -Infinity) - (a.final?.mean ?? -Infinity));
  const rows = scored.map(({ r, final, best }) => [
    ...r.values,
    String(r.final.length),
    final === null ? '-' : `${formatMeanStd(final)}${final.n < r.final.length ? ` (${final.n} of ${r.final.length})` : ''}`,
    best === null ? '-' : best.mean.toFixed(3),
    r.group,
  ]);
  return { head, rows };
}

export function sweepSummaryText(title: string, axes: readonly GridAxis[], results: readonly SettingResult[]): string {
  const { head, rows } = sweepSummary(axes, results);
  return `${title}\n${renderTable(head, rows)}\n`;
}
