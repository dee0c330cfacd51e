/**
 * One warm start per (config, seed), shared by every variant of the learning benchmark: a run of
 * the config with no RL iterations whose policy is kept as iter-0 (warm_start.save_checkpoint),
 * then each variant's RL as a fork of that checkpoint (`turnlab resume ckpt:N --fork --set ...`).
 * A checkpoint carries the RNG streams, the env seed schedule and the optimizer moments, and the
 * critic a GAE variant needs is built from the policy with the run seed's initial head, so a fork
 * trains what a run that did its own warm start would (tests/bench/learning-shared.test.ts).
 * A finished run with the same config is reused, an interrupted variant resumed from its last
 * checkpoint and an interrupted warm start from its warm-start checkpoint (warm_start.save_freq),
 * so an interrupted comparison carries on; a run that another live bench claimed (two
 * benches on one data folder, one a core) is left to it: skipped for now (`defer`, the caller
 * comes back to it), or waited for (`wait`).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isProcessAlive } from '../../main/services/run-owner';
import { resumeFromCheckpoint, trainFromConfigFile, type TrainingOutcome } from '../../main/services/training';
import { checkpointRunConfig } from '../../main/services/resume-checks';
import { hashConfig } from '../../main/store/repositories/runs';
import type { Store } from '../../main/store/db';
import type { CheckpointRecord, RunRecord } from '../../main/store/types';
import { loadRunConfig, withAbsoluteModulePaths } from '../../trainer-core';

export const BENCH_TAG = 'bench-learning';
export const WARM_START_TAG = 'bench-learning:warm-start';
export const VARIANT_TAG = 'bench-learning:variant';

export interface TrainedRun {
  run: RunRecord;
  checkpoint: CheckpointRecord;
  /** Wall time of the training, null when a finished run was reused. */
  seconds: number | null;
}

/**
 * The shared warm start's overrides: every variant's `--set`s and seed, and no RL iteration;
 * `withoutIteration` leaves expert iteration to the variants (SeedPlan.iteratesAfterWarm).
 */
export function warmStartOverrides(sets: readonly string[], seed: number, withoutIteration = false): string[] {
  return [...sets, `trainer.seed=${seed}`, 'trainer.total_training_steps=0', 'warm_start.save_checkpoint=true', ...(withoutIteration ? ['expert_iteration.rounds=0'] : [])];
}

/** A variant's overrides to run expert iteration and RL from the warm start's policy, as a run of its own. */
export function fromWarmPolicyOverrides(variant: readonly string[], warmFolder: string): string[] {
  return [...variant, `model.path=${warmFolder}`, 'warm_start.steps=0'];
}

/**
 * A variant's overrides on the warm start's config: the RL iterations back, the variant's own
 * settings, and no validation at the start, which the warm-start run already did at iteration 0
 * (validation draws from its own per-iteration stream, so skipping it changes no training).
 */
export function forkOverrides(sets: readonly string[], variant: readonly string[], totalSteps: number): string[] {
  return [...sets, ...variant, `trainer.total_training_steps=${totalSteps}`, 'trainer.val_before_train=false'];
}

/** What to do about a run another live process is training: leave it (null) or wait for it. */
export type TwinMode = 'defer' | 'wait';
const POLL_MS = 30_000;
/** Where a bench says which run it is training (a file per run, removed when it ends). */
export const CLAIMS_DIR = 'bench-claims';

/**
 * The first run, oldest first or newest first, that `accept`s and still has the checkpoint `pick`
 * names on disk.
 */
function runWithCheckpoint(store: Store, newestFirst: boolean, accept: (run: RunRecord) => boolean, pick: (run: number) => CheckpointRecord | undefined): { run: RunRecord; checkpoint: CheckpointRecord } | null {
  const ids = store.runs.allIds();
  for (const id of newestFirst ? [...ids].reverse() : ids) {
    const run = store.runs.get(id);
    if (!run || !accept(run)) continue;
    const checkpoint = pick(id);
    if (checkpoint && existsSync(resolve(store.dataDir, checkpoint.path))) return { run, checkpoint };
  }
  return null;
}

/** The oldest completed run that `matches`: the oldest, so that two benches that both trained one settle on the same. */
function finishedRun(store: Store, matches: (run: RunRecord) => boolean, pick: (run: number) => CheckpointRecord | undefined): { run: RunRecord; checkpoint: CheckpointRecord } | null {
  return runWithCheckpoint(store, false, (run) => run.status === 'completed' && matches(run), pick);
}

/**
 * Claims the training of `key` for this process: a file created only if absent, so of two
 * benches that look at once exactly one trains it. A claim whose process is gone is taken over.
 * Returns its release, or null while a live process holds it.
 */
function claim(dataDir: string, key: string): (() => void) | null {
  const dir = join(dataDir, CLAIMS_DIR);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${key}.pid`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isProcessAlive(pid)) return null;
      rmSync(file, { force: true });
    }
  }
  return null;
}

/** A finished run to reuse, this process's claim to train one, or null: another bench trains it (`defer`). */
async function findOrClaim(store: Store, key: string, matches: (run: RunRecord) => boolean, pick: (run: number) => CheckpointRecord | undefined, mode: TwinMode): Promise<{ kept: TrainedRun } | { release: () => void } | null> {
  for (;;) {
    const kept = finishedRun(store, matches, pick);
    if (kept) return { kept: { ...kept, seconds: null } };
    const release = claim(store.dataDir, key);
    if (release) {
      // Another bench may have finished it between the look and the claim.
      const late = finishedRun(store, matches, pick);
      if (!late) return { release };
      release();
      return { kept: { ...late, seconds: null } };
    }
    if (mode === 'defer') return null;
    await sleep(POLL_MS);
  }
}

// A warm-start checkpoint (warm_start.save_freq) sits at iteration 0 too, but holds no finished policy.
const iterZero = (store: Store) => (run: number) => store.checkpoints.listByRun(run).find((c) => c.iteration === 0 && c.warmStartStep === null);
const warmStartCheckpoint = (store: Store) => (run: number) => store.checkpoints.listByRun(run).find((c) => c.warmStartStep !== null);
const latest = (store: Store) => (run: number) => store.checkpoints.latest(run);

/** The config a run of this file with these overrides stores (module paths made absolute). */
function storedConfigHash(configPath: string, overrides: readonly string[]): string {
  return hashConfig(withAbsoluteModulePaths(loadRunConfig(configPath, overrides), dirname(resolve(configPath))));
}

/**
 * Trains (or finds) the warm start of `configPath` at `seed`: its iter-0 checkpoint; null: deferred.
 * A run of it that ended during its warm start goes on from its warm-start checkpoint.
 */
export async function sharedWarmStart(store: Store, configPath: string, runName: string, overrides: string[], log: (line: string) => void, mode: TwinMode = 'wait'): Promise<TrainedRun | null> {
  const hash = storedConfigHash(configPath, overrides);
  const matches = (r: RunRecord) => r.tags.includes(WARM_START_TAG) && r.configHash === hash;
  const found = await findOrClaim(store, `warm-start-${hash}`, matches, iterZero(store), mode);
  if (!found || 'kept' in found) return found?.kept ?? null;
  const start = performance.now();
  const interrupted = runWithCheckpoint(store, true, (r) => r.status !== 'completed' && matches(r), warmStartCheckpoint(store))?.checkpoint;
  if (interrupted) log(`${runName}: carrying on run ${interrupted.runId}'s warm start from its checkpoint at step ${interrupted.warmStartStep}`);
  const { run } = await (interrupted
    ? resumeFromCheckpoint(store, `ckpt:${interrupted.id}`, { log })
    : trainFromConfigFile(store, configPath, { overrides, name: runName, tags: [BENCH_TAG, WARM_START_TAG], log })
  ).finally(found.release);
  const checkpoint = iterZero(store)(run.id);
  if (run.status !== 'completed' || !checkpoint) throw new Error(`${runName} (run ${run.id}) ended ${run.status} without the warm start's checkpoint (iter-0)`);
  return { run, checkpoint, seconds: (performance.now() - start) / 1000 };
}

/**
 * A run that `matches` whose bench ended before it did (killed with its session, say) and that
 * saved a checkpoint of its own first: the newest such. Resuming it is bit-exact, so carrying it on
 * gives the run an uninterrupted one would have, without repeating what it already trained.
 */
function interruptedRun(store: Store, matches: (run: RunRecord) => boolean): CheckpointRecord | null {
  return runWithCheckpoint(store, true, (run) => run.status !== 'completed' && matches(run), latest(store))?.checkpoint ?? null;
}

/**
 * Trains a claimed variant: carries on its interrupted run where one saved a checkpoint, else
 * starts it with `begin`.
 */
async function trainClaimed(store: Store, runName: string, matches: (run: RunRecord) => boolean, release: () => void, log: (line: string) => void, begin: () => Promise<TrainingOutcome>): Promise<TrainedRun> {
  const start = performance.now();
  const interrupted = interruptedRun(store, matches);
  if (interrupted) log(`${runName}: carrying on run ${interrupted.runId} from its checkpoint at iteration ${interrupted.iteration}`);
  const { run } = await (interrupted ? resumeFromCheckpoint(store, `ckpt:${interrupted.id}`, { log }) : begin()).finally(release);
  return { run, checkpoint: finalCheckpoint(store, run, runName), seconds: (performance.now() - start) / 1000 };
}

/** Forks (or finds the finished fork of) the warm start's checkpoint with a variant's overrides; null: deferred. */
export async function forkedVariant(store: Store, warm: CheckpointRecord, runName: string, overrides: string[], log: (line: string) => void, mode: TwinMode = 'wait'): Promise<TrainedRun | null> {
  const hash = hashConfig(checkpointRunConfig(resolve(store.dataDir, warm.path), overrides).cfg);
  const matches = (r: RunRecord) => r.parentCheckpointId === warm.id && r.configHash === hash;
  const found = await findOrClaim(store, `fork-${warm.id}-${hash}`, matches, latest(store), mode);
  if (!found || 'kept' in found) return found?.kept ?? null;
  return trainClaimed(store, runName, matches, found.release, log, () => resumeFromCheckpoint(store, `ckpt:${warm.id}`, { fork: true, overrides, name: runName, tags: [BENCH_TAG, VARIANT_TAG], log }));
}

/** A variant of a config without a warm start: trained from scratch (or found finished); null: deferred. */
export async function scratchVariant(store: Store, configPath: string, runName: string, overrides: string[], log: (line: string) => void, mode: TwinMode = 'wait'): Promise<TrainedRun | null> {
  const hash = storedConfigHash(configPath, overrides);
  const matches = (r: RunRecord) => r.tags.includes(VARIANT_TAG) && r.parentRunId === null && r.configHash === hash;
  const found = await findOrClaim(store, `scratch-${hash}`, matches, latest(store), mode);
  if (!found || 'kept' in found) return found?.kept ?? null;
  return trainClaimed(store, runName, matches, found.release, log, () => trainFromConfigFile(store, configPath, { overrides, name: runName, tags: [BENCH_TAG, VARIANT_TAG], log }));
}

function finalCheckpoint(store: Store, run: RunRecord, runName: string): CheckpointRecord {
  const checkpoint = store.checkpoints.latest(run.id);
  if (run.status !== 'completed' || !checkpoint) throw new Error(`${runName} (run ${run.id}) ended ${run.status}${checkpoint ? '' : ' and saved no checkpoint'}`);
  return checkpoint;
}
