import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_FILE } from './checkpoint-files';

/**
 * `trainer.keep_last_n`: a run keeps its newest n checkpoints plus the one with the best
 * validation success. The list covers every checkpoint in the run's folder, including those
 * written before a resume, so a run stopped and resumed many times does not pile them up.
 */
export interface RetainedCheckpoint {
  path: string;
  iteration: number;
  /** Mean `val/<tag>/success` at the checkpoint's iteration; null when it did not validate. */
  valSuccess: number | null;
}

/** The mean over env tags of `val/<tag>/success`, or null when the metrics hold none. */
export function meanValSuccess(metrics: Record<string, number>): number | null {
  const values = Object.entries(metrics)
    .filter(([name, value]) => /^val\/[^/]+\/success$/.test(name) && Number.isFinite(value))
    .map(([, value]) => value);
  return values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

/** The checkpoints keep_last_n removes: all but the newest `keepLastN` and the best (the latest of equals). */
export function checkpointsToPrune(checkpoints: readonly RetainedCheckpoint[], keepLastN: number): RetainedCheckpoint[] {
  const byIteration = [...checkpoints].sort((a, b) => a.iteration - b.iteration);
  const keep = new Set(byIteration.slice(Math.max(0, byIteration.length - keepLastN)));
  let best: RetainedCheckpoint | null = null;
  for (const c of byIteration) if (c.valSuccess !== null && (best === null || c.valSuccess >= (best.valSuccess ?? -Infinity))) best = c;
  if (best) keep.add(best);
  return byIteration.filter((c) => !keep.has(c));
}

/**
 * The finished checkpoints (`iter-<n>` folders with a manifest) already in a run's folder, up to
 * `upTo`, with the validation success their state.json records (null for older checkpoints).
 */
export function existingCheckpoints(checkpointDir: string, upTo: number): RetainedCheckpoint[] {
  let names: string[];
  try {
    names = readdirSync(checkpointDir);
  } catch {
    return []; // No folder yet (a new run), or not a folder: saving the first checkpoint says why.
  }
  const found: RetainedCheckpoint[] = [];
  for (const name of names) {
    const match = /^iter-(\d+)$/.exec(name);
    const path = join(checkpointDir, name);
    if (!match || Number(match[1]) > upTo || !existsSync(join(path, MANIFEST_FILE))) continue;
    found.push({ path, iteration: Number(match[1]), valSuccess: recordedValSuccess(path) });
  }
  return found.sort((a, b) => a.iteration - b.iteration);
}

function recordedValSuccess(path: string): number | null {
  try {
    const state = JSON.parse(readFileSync(join(path, 'state.json'), 'utf8')) as { valSuccess?: unknown };
    return typeof state.valSuccess === 'number' && Number.isFinite(state.valSuccess) ? state.valSuccess : null;
  } catch {
    return null;
  }
}
