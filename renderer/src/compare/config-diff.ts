// Run configs as flat `a.b.c -> value` rows (preload/config-diff.ts), and the names of seed groups from them.

import { configTable } from '../../../preload/config-diff';

export { ABSENT, configTable, flattenConfig, formatConfigValue, type ConfigRow } from '../../../preload/config-diff';

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
