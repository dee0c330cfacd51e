// Run configs as flat `a.b.c -> value` rows, for the side-by-side config table.

import { flattenConfig } from '../../../preload/flatten-config';

export { flattenConfig };

/** Marks a key one run has and another lacks. */
export const ABSENT = '—';

export function formatConfigValue(value: unknown): string {
  if (value === undefined) return ABSENT;
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export interface ConfigRow {
  key: string;
  /** One display value per config, in the order given. */
  values: string[];
  differs: boolean;
}

/** One row per key of any config, sorted by key; `onlyDiffering` drops the rows all agree on. */
export function configTable(configs: readonly unknown[], onlyDiffering: boolean): ConfigRow[] {
  const flat = configs.map((config) => flattenConfig(config));
  const keys = [...new Set(flat.flatMap((f) => Object.keys(f)))].sort();
  const rows = keys.map((key) => {
    const values = flat.map((f) => formatConfigValue(Object.hasOwn(f, key) ? f[key] : undefined));
    return { key, values, differs: values.some((v) => v !== values[0]) };
  });
  return onlyDiffering ? rows.filter((row) => row.differs) : rows;
}

/**
 * A name for each seed group from the settings that differ between groups ("lr=0.001"),
 * seeds left out; null for a group when nothing but seeds differs. `configs` holds one
 * member's config per group.
 */
export function groupSettingLabels(configs: readonly unknown[], maxKeys = 3): Array<string | null> {
  const rows = configTable(configs, true).filter((row) => !/seed$/i.test(row.key));
  const shown = rows.slice(0, maxKeys);
  return configs.map((_, index) =>
    shown.length === 0 ? null : shown.map((row) => `${row.key.split('.').at(-1)}=${row.values[index]}`).join(', '),
  );
}
