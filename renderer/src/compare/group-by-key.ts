// Groups by one config key (W&B's "Group by" a parameter): every selected run with the same value
// of the key in one group, whatever else differs, so `algorithm.adv_estimator` draws GRPO,
// GiGPO and GAE each as one mean over its runs, seeds and other settings alike.
import { ABSENT, configTable, flattenConfig, formatConfigValue } from './config-diff';
import { SEED_KEYS } from './seed-groups';

export interface KeyGroup {
  /** The key's value as the config table shows it (an absent key is "—"). */
  value: string;
  /** Members in the order the runs were given. */
  runIds: number[];
}

/** The runs split by their value of `key`, groups in order of their first member. */
export function groupByKey(runs: ReadonlyArray<{ id: number; config: unknown }>, key: string): KeyGroup[] {
  const groups = new Map<string, KeyGroup>();
  for (const run of runs) {
    const flat = flattenConfig(run.config);
    const value = formatConfigValue(Object.hasOwn(flat, key) ? flat[key] : undefined);
    const group = groups.get(value);
    if (group) group.runIds.push(run.id);
    else groups.set(value, { value, runIds: [run.id] });
  }
  return [...groups.values()];
}

/**
 * The keys worth grouping by: those whose value differs between the runs, seeds left out (one
 * group a run); `chosen` stays listed while the address names it.
 */
export function groupingKeys(configs: readonly unknown[], chosen: string | null): string[] {
  const differing = configTable(configs, true)
    .map((row) => row.key)
    .filter((key) => !SEED_KEYS.includes(key));
  return chosen === null || differing.includes(chosen) ? differing : [chosen, ...differing];
}

/** A group's legend name: `adv_estimator=gigpo: 3 runs (#4, #5, #6)`. */
export function keyGroupLabel(key: string, group: KeyGroup): string {
  const runs = group.runIds.map((id) => `#${id}`).join(', ');
  const value = group.value === ABSENT ? `${ABSENT} (not set)` : group.value;
  return `${key.split('.').at(-1)}=${value}: ${group.runIds.length} ${group.runIds.length === 1 ? 'run' : 'runs'} (${runs})`;
}
