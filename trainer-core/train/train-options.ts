import type { BackendChoice } from '../backend';
import type { RunConfig } from '../config/schema';
import type { EnvSpecResolver } from '../rollout/es-manager';
import type { RunEndStatus, TrainingSink } from './sink';

// What a caller hands `train` and gets back; its own module so the session that opens a run and
// the loop that trains it both read it without importing each other.

export interface TrainOptions {
  config: RunConfig;
  sink: TrainingSink;
  /** This run's checkpoint folder; checkpoints go to `<dir>/iter-<n>`. */
  checkpointDir: string;
  /** Continue from this checkpoint folder (same run, or a fork with edited settings). */
  resumeFrom?: string;
  /** The config before `${}` resolution, kept in each checkpoint as config.source.yaml. */
  configSource?: string;
  /**
   * `resumeFrom` starts a new child run (a fork), not the same run again: like a new run, it
   * validates at its starting point when `val_before_train` is set.
   */
  fork?: boolean;
  /** Polled after each iteration; true ends the run after saving a checkpoint. */
  shouldStop?: () => boolean;
  log?: (line: string) => void;
  /** The command that resumes this run (`turnlab resume 7`), named when a stop leaves it resumable. */
  resumeCommand?: string;
  resolveSpec?: EnvSpecResolver;
  /** A backend the caller already started (to fail before storing anything); else one is picked. */
  backend?: BackendChoice;
}

export interface TrainResult {
  status: RunEndStatus;
  lastIteration: number;
  backend: string;
  device: string;
}
