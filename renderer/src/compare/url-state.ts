// Compare's settings live in the address (#/compare?runs=1,2&metric=...&metric=...&smooth=0.6
// &x=relative&group=1&groupby=algorithm.adv_estimator&band=minmax&members=0&log=1&logx=1;
// x=metric:perf/total_generated_tokens plots against another metric; smoothKind=twema|running|
// gaussian picks a smoothing other than the EMA), so a comparison is a link to share or
// bookmark. The last one is remembered, so the top "Compare" link brings it back instead of an
// empty view.
import type { LocationQuery } from 'vue-router';
import { lastQuery } from '../stores/last-query';
import type { BandMode } from './seed-groups';
import type { XAxisKind } from './plot';
import { isSmoothingKind, NO_SMOOTHING, SMOOTHERS, smoothingOff, type Smoothing } from './smoothers';

const LAST_KEY = 'turnlab.compare.lastQuery';

export interface CompareSettings {
  smoothing: Smoothing;
  xAxis: XAxisKind;
  logScale: boolean;
  /** A log x axis; not for wall time. */
  logX: boolean;
  groupSeeds: boolean;
  /** With groupSeeds: group by this config key's value instead of by everything but the seed. */
  groupBy: string | null;
  bandMode: BandMode;
  showMembers: boolean;
}

export const DEFAULT_SETTINGS: CompareSettings = {
  smoothing: NO_SMOOTHING,
  xAxis: 'iteration',
  logScale: false,
  logX: false,
  groupSeeds: false,
  groupBy: null,
  bandMode: 'std',
  showMembers: true,
};

function one(query: LocationQuery, key: string): string | undefined {
  const raw = query[key];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value : undefined;
}

/** The settings an address holds; anything missing or malformed is the default. */
export function settingsFromQuery(query: LocationQuery): CompareSettings {
  const smooth = Number(one(query, 'smooth'));
  const kindName = one(query, 'smoothKind');
  const kind = isSmoothingKind(kindName) ? kindName : 'ema';
  const x = one(query, 'x');
  const band = one(query, 'band');
  return {
    // One kind's amount is not another's (a window of 9 is no EMA weight): invalid is unsmoothed.
    smoothing: one(query, 'smooth') !== undefined && SMOOTHERS[kind].valid(smooth) ? { kind, amount: smooth } : smoothingOff(kind),
    xAxis: x === 'relative' || x === 'wall' || (x !== undefined && /^metric:./.test(x)) ? (x as XAxisKind) : 'iteration',
    logScale: one(query, 'log') === '1',
    logX: one(query, 'logx') === '1',
    groupSeeds: one(query, 'group') === '1',
    groupBy: one(query, 'groupby') || null,
    bandMode: band === 'minmax' ? 'minmax' : 'std',
    showMembers: one(query, 'members') !== '0',
  };
}

/** One setting as the address writes it; undefined (left out) for the default. */
export function settingToQuery<K extends keyof CompareSettings>(key: K, value: CompareSettings[K]): Record<string, string | undefined> {
  switch (key) {
    case 'smoothing': {
      // Both keys in one patch: two patches in a row would each start from the same old address.
      const { kind, amount } = value as Smoothing;
      return { smooth: amount === SMOOTHERS[kind].param.off ? undefined : String(amount), smoothKind: kind === 'ema' ? undefined : kind };
    }
    case 'xAxis':
      return { x: value === 'iteration' ? undefined : String(value) };
    case 'logScale':
      return { log: value ? '1' : undefined };
    case 'logX':
      return { logx: value ? '1' : undefined };
    case 'groupSeeds':
      return { group: value ? '1' : undefined };
    case 'groupBy':
      return { groupby: (value as string | null) ?? undefined };
    case 'bandMode':
      return { band: value === 'std' ? undefined : String(value) };
    default:
      return { members: value ? undefined : '0' };
  }
}

const last = lastQuery(LAST_KEY);

/** The last comparison's query, for the top "Compare" link. */
export const lastCompareQuery = last.query;

export const rememberCompareQuery = last.remember;
