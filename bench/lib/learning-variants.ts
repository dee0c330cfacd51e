/**
 * The variants `npm run bench -- learning` compares on one config and seed: each estimator of
 * `--estimators` crossed with each shaping of `--shaping`. They differ only in `algorithm.*`
 * keys, which the warm start never reads, so all of them can start from one warm start; the
 * checks here refuse what would break that (a `--set` of a key the variants set, a config whose
 * warm start would differ between variants).
 */
import { BenchArgumentError } from './bench-errors';

/** `--estimators` names beyond the adv_estimators: PPO with turn-level GAE. */
export const BI_LEVEL_GAE = 'bi_level_gae';

export interface Variant {
  /** null: the config's own estimator. */
  estimator: string | null;
  /** A shaping coefficient, null for none, undefined for the config's own `algorithm.turn_shaping`. */
  shaping?: number | null;
}

/** The overrides that pick an estimator of `--estimators`. */
export function estimatorOverrides(estimator: string): string[] {
  if (estimator === BI_LEVEL_GAE) return ['algorithm.adv_estimator=gae', 'algorithm.bi_level_gae=true'];
  return [`algorithm.adv_estimator=${estimator}`, 'algorithm.bi_level_gae=false'];
}

/** `--shaping off,0.1`: null for off, else a non-negative coefficient. */
export function parseShaping(text: string): (number | null)[] {
  const values = text.split(',').map((part) => {
    const t = part.trim();
    if (t === 'off') return null;
    const coef = Number(t);
    if (t === '' || !Number.isFinite(coef) || coef < 0) throw new BenchArgumentError(`--shaping wants off or a non-negative coefficient for each variant, separated by commas, e.g. --shaping off,0.1 (got "${t}")`);
    return coef;
  });
  return values;
}

/** Every estimator crossed with every shaping, estimators outermost. */
export function variantsOf(estimators: readonly string[], shapings: readonly (number | null)[] | null): Variant[] {
  const es = estimators.length ? estimators : [null];
  return es.flatMap((estimator) => (shapings ? shapings.map((shaping) => ({ estimator, shaping })) : [{ estimator }]));
}

/**
 * A variant's overrides; shaping is potential-based with the config's own discount, so that the
 * shaping terms telescope as the returns are discounted (Ng, Harada and Russell, 1999).
 */
export function variantOverrides(variant: Variant, gamma: number): string[] {
  const out = variant.estimator === null ? [] : estimatorOverrides(variant.estimator);
  if (variant.shaping === null) out.push('algorithm.turn_shaping=null');
  else if (variant.shaping !== undefined) out.push(`algorithm.turn_shaping={coef: ${variant.shaping}, gamma: ${gamma}}`);
  return out;
}

/** `off`, `0.1`, or what the config itself sets when `--shaping` was not given. */
export function shapingLabel(variant: Variant, configShaping: { coef: number } | null): string {
  const coef = variant.shaping === undefined ? (configShaping?.coef ?? null) : variant.shaping;
  return coef === null ? 'off' : String(coef);
}

/** A run name part: `grpo`, `grpo-shaping0.1`, `grpo-noshaping`. */
export function variantName(variant: Variant, estimatorLabel: string): string {
  if (variant.shaping === undefined) return estimatorLabel;
  return variant.shaping === null ? `${estimatorLabel}-noshaping` : `${estimatorLabel}-shaping${variant.shaping}`;
}

/** The keys the variants set, each by the flag that sets them. */
export function variedKeys(estimators: readonly string[], shapings: readonly (number | null)[] | null): Map<string, string> {
  const keys = new Map<string, string>();
  if (estimators.length) for (const k of ['algorithm.adv_estimator', 'algorithm.bi_level_gae']) keys.set(k, '--estimators');
  if (shapings) keys.set('algorithm.turn_shaping', '--shaping');
  return keys;
}

/**
 * A `--set` of a key the variants set would hold in some variants and be overridden in others:
 * refused in one line naming the key. A key above or below one counts (`algorithm`,
 * `algorithm.turn_shaping.coef`).
 */
export function refuseVariedSets(overrides: readonly string[], varied: ReadonlyMap<string, string>): void {
  for (const text of overrides) {
    const key = text.slice(0, text.indexOf('=')).trim();
    for (const [k, flag] of varied) {
      if (key === k || key.startsWith(`${k}.`) || k.startsWith(`${key}.`)) {
        throw new BenchArgumentError(`--set ${text}: ${flag} sets \`${k}\` in each variant, so this --set would hold in some variants only; drop it or the ${flag} flag`);
      }
    }
  }
}

/**
 * The first key outside `algorithm.*` whose value differs between two resolved configs, as
 * `path: a -> b`, or null. The variants share a warm start only if their fresh runs would differ
 * in nothing else (a `${algorithm.gamma}` reference in a warm-start key would be caught here).
 */
export function warmStartDivergence(a: unknown, b: unknown, path: string[] = []): string | null {
  if (path.length === 1 && path[0] === 'algorithm') return null;
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    for (const key of [...new Set([...Object.keys(ao), ...Object.keys(bo)])].sort()) {
      const found = warmStartDivergence(ao[key], bo[key], [...path, key]);
      if (found) return found;
    }
    return null;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? null : `${path.join('.')}: ${JSON.stringify(a)} -> ${JSON.stringify(b)}`;
}
