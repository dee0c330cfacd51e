import type { z } from 'zod';

/** What `step` reports besides observation, reward and done. Envs may add their own keys. */
export interface EnvInfo {
  success: boolean;
  actionIsValid: boolean;
  actionIsEffective: boolean;
  [key: string]: unknown;
}

export interface StepResult {
  observation: string;
  reward: number;
  done: boolean;
  info: EnvInfo;
}

export type GridCell = 'wall' | 'floor' | 'frozen' | 'hole' | 'goal' | 'target' | 'start';
export type Cell = [row: number, col: number];

/** Structured state for the replay view; the UI draws tiles from it, never from the text. */
export type StateRender =
  | {
      kind: 'grid';
      /** Static terrain, row by row. */
      rows: GridCell[][];
      player: Cell | null;
      boxes: Cell[];
      targets: Cell[];
      /** Terrain-specific extra marks, e.g. the player fell into a hole. */
      status?: 'playing' | 'fell' | 'reached-goal' | 'solved';
    }
  | { kind: 'text'; text: string; fields?: Record<string, string | number | string[] | number[]> };

/**
 * One environment instance. `reset(seed)` must be a pure function of the seed and the options
 * the instance was created with: the same seed gives the same episode, given the same actions.
 */
export interface Env {
  /** Returns the first observation text. */
  reset(seed: number): string;
  /** Applies one action, given as text (an action name, an equation, an answer). */
  step(action: string): StepResult;
  /** The current state as the model sees it. */
  render(): string;
  /** The current state for the graphical replay. */
  renderState(): StateRender;
  /** Task description shown once at the start of the prompt. */
  instructions(): string;
  /** Symbol legend, e.g. `P: player`. Empty string when the env has none. */
  legend(): string;
  /**
   * Names of the discrete actions, matched case-insensitively by the parser. `null` means the
   * action is free text (Countdown equations, MathQA answers) and is passed through as written.
   */
  actionNames(): string[] | null;
  /** An optimal action sequence from the current state, or null when none exists / no solver. */
  solve?(): string[] | null;
  /**
   * Where no fixed sequence is optimal (slippery ice): the best actions for this turn, for an
   * agent that sees the state again only at its next turn. The warm start's expert uses it when
   * solve() gives null.
   */
  planTurn?(budget: TurnBudget): string[] | null;
  /**
   * Moves from the current state to the goal, for solver-guided shaping (`algorithm.turn_shaping`);
   * null when the goal cannot be reached. Without it the length of `solve()` is used.
   */
  distanceToGoal?(): number | null;
  /** Optimal policy's success probability from the current state within `actionBudget` actions. */
  optimalSuccessProbability?(actionBudget: number): number;
}

/** What is left of an episode when an agent plans its turn. */
export interface TurnBudget {
  turnsLeft: number;
  actionsLeft: number;
  maxActionsPerTurn: number;
}

/** Registry entry: how to make an env and which options it takes. */
export interface EnvSpec<Options extends Record<string, unknown> = Record<string, unknown>> {
  /** Env type name as used in configs (`env_type`), e.g. `frozen_lake`. */
  type: string;
  description: string;
  /** zod schema of the env options, with RAGEN's defaults filled in by `.parse({})`. */
  optionsSchema: z.ZodType<Options>;
  create(options: Options): Env;
  /** True when `step` may be called several times per turn (grid worlds). */
  multiAction: boolean;
}
