/**
 * The learning benchmark's held-out evaluation of a checkpoint: 1024 episodes from seed 100000
 * (far past every train and validation seed) at temperature 0.5, as RAGEN evaluates, stored
 * beside the checkpoint. A checkpoint already evaluated so is read back, not played again, so an
 * interrupted comparison resumes without repeating work.
 */
import { resolve } from 'node:path';
import { recordEvaluation } from '../../main/services/stored-evaluation';
import type { Store } from '../../main/store/db';
import type { CheckpointRecord } from '../../main/store/types';
import { evaluateCheckpoint } from '../../trainer-core/train/evaluate';

/** 1024 episodes put the standard error of a success near 0.8 at about 0.012. */
export const EVALUATION_EPISODES = 1024;
export const EVALUATION_SEED = 100_000;
export const EVALUATION_OVERRIDES = ['actor_rollout_ref.rollout.val_kwargs.temperature=0.5', 'actor_rollout_ref.rollout.val_kwargs.do_sample=true'];

export interface EpisodeOutcome {
  envTag: string;
  envIndex: number;
  seed: number;
  success: boolean;
}

export interface HeldOut {
  /** `val/<tag>/...` figures. */
  metrics: Record<string, number>;
  outcomes: EpisodeOutcome[];
  iteration: number;
}

/** The stored held-out evaluation of `checkpoint`, or a new one, played and stored now. */
export async function heldOut(store: Store, checkpoint: CheckpointRecord, episodes: number): Promise<HeldOut> {
  const same = (overrides: string[]) => overrides.length === EVALUATION_OVERRIDES.length && overrides.every((o, i) => o === EVALUATION_OVERRIDES[i]);
  const kept = store.evaluations
    .listByRun(checkpoint.runId)
    .find((e) => e.checkpointId === checkpoint.id && e.startSeed === EVALUATION_SEED && e.numEpisodes === episodes && same(e.overrides));
  if (kept) {
    const metrics = Object.fromEntries(Object.entries(kept.metrics).map(([k, v]) => [k, v ?? Number.NaN]));
    return { metrics, outcomes: store.evaluations.episodes(kept.id).map(outcome), iteration: kept.iteration };
  }
  const result = await evaluateCheckpoint(resolve(store.dataDir, checkpoint.path), { episodes, seed: EVALUATION_SEED, overrides: EVALUATION_OVERRIDES });
  recordEvaluation(store, checkpoint, result, { overrides: EVALUATION_OVERRIDES, startSeed: EVALUATION_SEED });
  return { metrics: result.metrics, outcomes: result.episodeReports.map(outcome), iteration: result.iteration };
}

function outcome(e: EpisodeOutcome): EpisodeOutcome {
  return { envTag: e.envTag, envIndex: e.envIndex, seed: e.seed, success: e.success };
}

/**
 * Two evaluations' successes, episode by episode on the same start states (by env tag and
 * index; the store lists episodes in that order, a fresh evaluation in play order).
 */
export function pairedSuccesses(warm: readonly EpisodeOutcome[], after: readonly EpisodeOutcome[]): [boolean[], boolean[]] {
  const order = (xs: readonly EpisodeOutcome[]) => [...xs].sort((a, b) => (a.envTag < b.envTag ? -1 : a.envTag > b.envTag ? 1 : a.envIndex - b.envIndex));
  const w = order(warm);
  const a = order(after);
  if (w.length !== a.length) throw new RangeError(`paired evaluations played ${w.length} and ${a.length} episodes`);
  w.forEach((e, i) => {
    if (e.envTag !== a[i].envTag || e.seed !== a[i].seed) throw new RangeError(`paired evaluations differ at episode ${i}: ${e.envTag} seed ${e.seed} and ${a[i].envTag} seed ${a[i].seed}`);
  });
  return [w.map((e) => e.success), a.map((e) => e.success)];
}

/** The mean over env tags of the `val/<tag>/<suffix>` figures, or '-' when there are none. */
export function meanFigure(metrics: Record<string, number>, suffix: string): string {
  const values = Object.entries(metrics)
    .filter(([k]) => k.startsWith('val/') && k.endsWith(`/${suffix}`))
    .map(([, v]) => v);
  return values.length ? (values.reduce((a, b) => a + b, 0) / values.length).toFixed(3) : '-';
}

/** The command that plays a run's final checkpoint on the bench's evaluation episodes again. */
export function evalCommand(dataDir: string, runId: number, episodes = EVALUATION_EPISODES): string {
  const sets = EVALUATION_OVERRIDES.map((o) => `--set ${o}`).join(' ');
  return `node bin/turnlab.js --data-dir ${dataDir} eval ${runId} --episodes ${episodes} --seed ${EVALUATION_SEED} ${sets}`;
}
