/**
 * Warm-start checkpoints (`warm_start.save_freq`): a supervised warm start of hours keeps its
 * progress in the ordinary checkpoint format, in a folder `warm-start-<step>` beside the run's
 * `iter-<n>` ones: the policy (a pretrained run's trained parameters and adapter), the warm start's
 * own Adam as `optimizer.actor.safetensors`, state.json with `warmStart` (the step, the stream that
 * picks demonstrations, the losses so far) and the demonstrations DAgger added. Only the latest is
 * kept, and none once the run has a finished checkpoint: it is no policy of an iteration, only
 * where its own run's warm start resumes.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../config/errors';
import type { RunConfig } from '../config/schema';
import type { Adam } from '../model/adam';
import { readable, saveCheckpoint, type OptimizerSnapshot, type TrainingState, type WarmStartState } from './checkpoint';
import { CheckpointError } from './checkpoint-files';
import type { Demonstration } from './demonstrations';
import { initialTrainingState } from './initial-state';

/** The demonstrations DAgger added to the pool by the checkpoint's step. */
export const WARM_START_POOL_FILE = 'warm-start-pool.json';

const FOLDER = /^warm-start-(\d+)$/;
/** A warm-start folder, or one a save left half-written (`.warm-start-<step>.partial`). */
const ANY_FOLDER = /^\.?warm-start-\d+(\.partial)?$/;

export function warmStartCheckpointDir(checkpointDir: string, step: number): string {
  return join(checkpointDir, `warm-start-${step}`);
}

/**
 * Deletes the run's warm-start folders but `keep`: the one superseded by a newer save or by a
 * finished checkpoint, and any a killed process left behind. Returns the paths deleted.
 */
export function removeWarmStartFolders(checkpointDir: string, keep: string | null = null): string[] {
  let names: string[];
  try {
    names = readdirSync(checkpointDir);
  } catch {
    return [];
  }
  const removed = names.filter((name) => ANY_FOLDER.test(name) && join(checkpointDir, name) !== keep);
  for (const name of removed) rmSync(join(checkpointDir, name), { recursive: true, force: true });
  return removed.filter((name) => FOLDER.test(name)).map((name) => join(checkpointDir, name));
}

export interface WarmStartSave {
  cfg: RunConfig;
  modelFiles: Record<string, Uint8Array | string>;
  optimizer: Adam;
  configYaml: string;
  sourceConfigYaml?: string;
  warmStart: WarmStartState;
  /** What DAgger added (null without DAgger). */
  added: readonly Demonstration[] | null;
}

export function saveWarmStartCheckpoint(dir: string, c: WarmStartSave): Promise<{ sizeBytes: number; sha256: string }> {
  // RL's counters and streams as a new run starts them: state.json's shape, never read back (a
  // resumed warm start goes on to RL as a new run does).
  const state: TrainingState = { ...initialTrainingState(c.cfg, { resetCount: 0, seedOffset: 0 }), warmStart: c.warmStart };
  return saveCheckpoint(dir, {
    modelFiles: c.modelFiles,
    actorOptimizer: c.optimizer,
    criticOptimizer: null,
    configYaml: c.configYaml,
    sourceConfigYaml: c.sourceConfigYaml,
    state,
    extraFiles: c.added ? { [WARM_START_POOL_FILE]: JSON.stringify(c.added) } : undefined,
  });
}

/** What a warm start goes on from. */
export interface WarmStartResume {
  /** The checkpoint it was read from. */
  dir: string;
  state: WarmStartState;
  optimizer: OptimizerSnapshot;
  added: Demonstration[];
}

const ints = z.array(z.number().int());
const numbers = z.array(z.number());
const sequence = z.object({ inputIds: ints, lossMask: numbers, logprobs: numbers, turnEnds: ints, turnNumbers: ints, tokenRewards: numbers, documentIds: ints });
/** The demonstrations as JSON writes them (a Demonstration's fields). */
const pool = z.array(z.object({ tag: z.string(), text: z.string(), sequence, replyTokens: ints.optional(), success: z.boolean().optional() }));

/**
 * The warm start a checkpoint holds, or null for a finished checkpoint. Refused, naming the key,
 * when `cfg` would run another warm start: its steps set the learning-rate schedule and DAgger's
 * rounds, so a resume with others would not be the run it was.
 */
export function warmStartResume(dir: string, c: { state: TrainingState; actorOptimizer: OptimizerSnapshot; files: Record<string, Buffer> }, cfg: RunConfig): WarmStartResume | null {
  const state = c.state.warmStart;
  if (!state) return null;
  checkWarmStartConfig(dir, state, cfg);
  let added: Demonstration[] = [];
  if (state.daggerRng) {
    const bytes = c.files[WARM_START_POOL_FILE];
    if (!bytes) throw new CheckpointError(`checkpoint ${dir} has no ${WARM_START_POOL_FILE}`);
    added = readable(dir, WARM_START_POOL_FILE, () => pool.parse(JSON.parse(bytes.toString('utf8'))));
  }
  return { dir, state, optimizer: c.actorOptimizer, added };
}

/** A warm-start checkpoint goes on only under the warm start it was saved in. */
export function checkWarmStartConfig(dir: string, state: WarmStartState, cfg: RunConfig): void {
  const ws = cfg.warm_start;
  const problem =
    ws.mode === 'none' || ws.steps !== state.steps
      ? { key: ws.mode === 'none' ? 'mode' : 'steps', text: `is ${ws.mode === 'none' ? 'none' : ws.steps}, but checkpoint ${dir} holds a warm start stopped at step ${state.step} of ${state.steps}` }
      : (ws.dagger_rounds > 0) !== (state.daggerRng !== undefined)
        ? { key: 'dagger_rounds', text: `is ${ws.dagger_rounds}, but checkpoint ${dir} holds a warm start ${state.daggerRng ? 'with' : 'without'} DAgger` }
        : null;
  if (problem) {
    throw new ConfigError([{ path: ['warm_start', problem.key], message: `\`warm_start.${problem.key}\` ${problem.text}; resume it with the warm start it was saved in (turnlab show <run> --config)` }]);
  }
}

/** `model.path` starts a run from a finished policy: a warm-start checkpoint is refused, naming the key. */
export function refuseWarmStartPolicy(dir: string, state: TrainingState): void {
  if (!state.warmStart) return;
  const { step, steps } = state.warmStart;
  throw new ConfigError([
    {
      path: ['model', 'path'],
      message: `\`model.path\` names ${dir}, a warm-start checkpoint saved at step ${step} of ${steps} of its run's warm start: no finished policy to start from; resume its run to finish the warm start and start from its iter-0 (warm_start.save_checkpoint)`,
    },
  ]);
}
