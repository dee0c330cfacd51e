// What every metric picker shares: the match mode and the metrics picked lately, kept across
// reloads, so a metric chosen in Compare is offered first in the Run view and back.
import { isString, isStringArray, persistedRef } from '../run/persisted';
import { MATCH_MODES, rememberRecent, type MatchMode } from '../run/metric-match';

const isMode = (value: unknown): value is MatchMode => isString(value) && (MATCH_MODES as readonly string[]).includes(value);

export const matchMode = persistedRef<MatchMode>('turnlab.metricPicker.mode', 'words', isMode);
export const recentMetrics = persistedRef<string[]>('turnlab.metricPicker.recent', [], isStringArray);

export function recordRecentMetric(name: string): void {
  recentMetrics.value = rememberRecent(recentMetrics.value, name);
}
