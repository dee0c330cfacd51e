import type { StateRender } from '../envs/types';

/**
 * Where a training run reports what happens. The trainer knows nothing of storage: the CLI and
 * the desktop app pass a sink that writes to SQLite; tests pass one that keeps things in memory.
 * Every method may be async; the trainer awaits each call, so a sink can batch its writes.
 */

export type RunEndStatus = 'completed' | 'stopped' | 'failed';

export interface RunStartInfo {
  backend: string;
  device: string;
  /** Why each earlier backend candidate was not used. */
  backendNotes: string[];
  parameterCount: number;
  /** First iteration this process will train (1 for a new run, k + 1 when resuming from k). */
  startIteration: number;
  totalIterations: number;
}

/**
 * A played turn and episode as the trainer reports them. These are the source of the stored
 * shapes: the store's records and the contract's DTOs (preload/contract.ts) are these plus ids.
 */
export interface TurnReport {
  /** Position in the episode, from 0. */
  turnIndex: number;
  /** The observation the model was shown before replying. */
  observation: string;
  /** Structured state before the turn, for the graphical replay. */
  state: StateRender;
  response: string;
  actions: string[];
  /** How many of its actions were valid. */
  numValidActions: number;
  reward: number;
  done: boolean;
  info: Record<string, unknown>;
  /** Tokens the model generated in this turn. */
  numTokens: number;
  logprobSum: number;
  /** Mean advantage over this turn's generated tokens (null for validation episodes). */
  advantageMean: number | null;
}

export interface EpisodeReport {
  iteration: number;
  split: 'train' | 'val';
  envTag: string;
  groupId: number;
  envIndex: number;
  seed: number;
  totalReward: number;
  success: boolean;
  numTurns: number;
  numActions: number;
  /** Ended by a budget (actions, turns, context) rather than by the environment. */
  truncated: boolean;
  /** Dropped by the rollout filter before the update. */
  filteredOut: boolean;
  turns: TurnReport[];
}

export interface CheckpointReport {
  iteration: number;
  path: string;
  sizeBytes: number;
  sha256: string;
  metrics: Record<string, number>;
  /**
   * Set for a warm-start checkpoint (`warm_start.save_freq`, iteration 0): the warm start's steps
   * done. It only resumes its own run; the run keeps its latest one until a finished checkpoint.
   */
  warmStartStep?: number;
}

/** One round of `expert_iteration`. */
export interface ExpertIterationRound {
  /** From 1. */
  round: number;
  rounds: number;
  /** New start states played, and how many of them the policy solved (at the rollout temperature). */
  played: number;
  solved: number;
  /** Solved episodes in the pool the policy was then fitted to. */
  pool: number;
  /** The supervised loss of the round's last step; null while the pool is empty. */
  loss: number | null;
}

/** What trains the policy before RL: the supervised warm start, then expert iteration's rounds. */
export type WarmUpPhase = 'warm start' | 'expert iteration';

export interface TrainingSink {
  /** The backend, as soon as it is chosen: before the model is built and warmed up, which can take an hour. */
  backendSelected?(info: Pick<RunStartInfo, 'backend' | 'device'>): void | Promise<void>;
  runStarted(info: RunStartInfo): void | Promise<void>;
  /** Called once per iteration, after the update (and validation, when it ran). */
  iteration(iteration: number, metrics: Record<string, number>, episodes: EpisodeReport[]): void | Promise<void>;
  checkpoint(report: CheckpointReport): void | Promise<void>;
  /** Checkpoints pruned by `keep_last_n`. */
  checkpointsRemoved?(paths: string[]): void | Promise<void>;
  /** The supervised warm start's loss at each of its steps (1..n), once it has finished. */
  warmStartLoss?(losses: number[]): void | Promise<void>;
  /**
   * How far the policy's training before RL has got, so a run that warms up for an hour shows more
   * than its status: the supervised warm start at step 0, every hundredth of its steps and its
   * last; expert iteration at round 0 and after each round (`step` counts rounds then). `loss` is
   * that step's or round's fit, null at 0 and for a round with nothing to fit.
   */
  warmStartProgress?(step: number, steps: number, loss: number | null, phase: WarmUpPhase): void | Promise<void>;
  /** Expert iteration's rounds (`expert_iteration.rounds`), once the last has finished. */
  expertIteration?(rounds: ExpertIterationRound[]): void | Promise<void>;
  runEnded(status: RunEndStatus, error?: string): void | Promise<void>;
}

/** Keeps everything in memory: for tests and for `turnlab eval`. */
export class MemorySink implements TrainingSink {
  start: RunStartInfo | null = null;
  readonly metrics = new Map<number, Record<string, number>>();
  readonly episodes: EpisodeReport[] = [];
  readonly checkpoints: CheckpointReport[] = [];
  status: RunEndStatus | null = null;
  error: string | undefined;
  warmStart: number[] = [];
  warmStartReports: Array<{ step: number; steps: number; loss: number | null; phase: WarmUpPhase }> = [];
  expertIterationRounds: ExpertIterationRound[] = [];

  selected: Pick<RunStartInfo, 'backend' | 'device'> | null = null;

  backendSelected(info: Pick<RunStartInfo, 'backend' | 'device'>): void {
    this.selected = { ...info };
  }
  warmStartLoss(losses: number[]): void {
    this.warmStart = losses.slice();
  }
  warmStartProgress(step: number, steps: number, loss: number | null, phase: WarmUpPhase): void {
    this.warmStartReports.push({ step, steps, loss, phase });
  }
  expertIteration(rounds: ExpertIterationRound[]): void {
    this.expertIterationRounds = rounds.slice();
  }

  runStarted(info: RunStartInfo): void {
    this.start = info;
  }
  iteration(iteration: number, metrics: Record<string, number>, episodes: EpisodeReport[]): void {
    this.metrics.set(iteration, metrics);
    this.episodes.push(...episodes);
  }
  checkpoint(report: CheckpointReport): void {
    this.checkpoints.push(report);
  }
  runEnded(status: RunEndStatus, error?: string): void {
    this.status = status;
    this.error = error;
  }
}
