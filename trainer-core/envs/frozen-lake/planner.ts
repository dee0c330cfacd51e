/**
 * The best play on slippery ice for an agent that, like the LLM agent, sees the board only
 * between turns: each turn it commits to up to `maxActionsPerTurn` moves without seeing where
 * it slips. Finite-horizon dynamic programming over (turns left, square, actions left), each
 * turn choosing the move sequence that maximises the chance of reaching the goal afterwards.
 * It is the expert the warm start imitates when no fixed path is optimal (`solve()` is null).
 */
import type { LakeMap } from './map';
import { LAKE_ACTIONS, lakeMove, slipDirections, type LakeAction } from './solver';

export interface TurnPlan {
  actions: LakeAction[];
  /** Success probability of playing this plan, then the best plans after it. */
  success: number;
}

/** Ties are broken towards fewer moves: seeing the board sooner never hurts. */
const TIE = 1e-12;

/** Where a blind move sequence from one square ends: mass on the goal, and on each other square. */
interface Outcome {
  moves: number[];
  goal: number;
  /** Squares with mass (not holes, not the goal) and their probabilities. */
  cells: Int32Array;
  mass: Float64Array;
}

export class LakeTurnPlanner {
  /** value(cell, turns, actions), NaN until computed. */
  private readonly values: Float64Array;
  private readonly maxTurns: number;
  private readonly maxActions: number;
  /** Per square, the outcome of every move sequence up to maxActionsPerTurn long, shortest first. */
  private readonly outcomes = new Map<number, Outcome[]>();

  constructor(
    private readonly map: LakeMap,
    private readonly slippery: boolean,
    readonly maxActionsPerTurn: number,
    limits: { turns: number; actions: number } = { turns: 32, actions: 64 },
  ) {
    this.maxTurns = limits.turns;
    this.maxActions = limits.actions;
    this.values = new Float64Array(map.tiles.length * (limits.turns + 1) * (limits.actions + 1)).fill(NaN);
  }

  /** The best move sequence for this turn from `from`, or an empty plan on a hole or the goal. */
  plan(from: number, turnsLeft: number, actionsLeft: number): TurnPlan {
    const tiles = this.map.tiles;
    if (tiles[from] === 'G') return { actions: [], success: 1 };
    if (tiles[from] === 'H' || turnsLeft <= 0 || actionsLeft <= 0) return { actions: [], success: 0 };
    let best: Outcome | null = null;
    let bestSuccess = -1;
    for (const outcome of this.outcomesFrom(from)) {
      const length = outcome.moves.length;
      if (length > actionsLeft) break;
      let success = outcome.goal;
      for (let i = 0; i < outcome.cells.length; i++) success += outcome.mass[i] * this.value(outcome.cells[i], turnsLeft - 1, actionsLeft - length);
      // Shortest first and strictly better only: on a tie the shorter plan wins (seeing the board sooner never hurts).
      if (success > bestSuccess + TIE) {
        bestSuccess = success;
        best = outcome;
      }
    }
    return { actions: (best?.moves ?? []).map((a) => LAKE_ACTIONS[a]), success: Math.max(0, bestSuccess) };
  }

  /** Success probability of the best play from `cell` with this many turns and actions left. */
  value(cell: number, turnsLeft: number, actionsLeft: number): number {
    const tile = this.map.tiles[cell];
    if (tile === 'G') return 1;
    if (tile === 'H' || turnsLeft <= 0 || actionsLeft <= 0) return 0;
    if (turnsLeft > this.maxTurns || actionsLeft > this.maxActions) return this.plan(cell, turnsLeft, actionsLeft).success;
    const index = (cell * (this.maxTurns + 1) + turnsLeft) * (this.maxActions + 1) + actionsLeft;
    let v = this.values[index];
    if (Number.isNaN(v)) {
      v = this.plan(cell, turnsLeft, actionsLeft).success;
      this.values[index] = v;
    }
    return v;
  }

  private outcomesFrom(from: number): Outcome[] {
    let list = this.outcomes.get(from);
    if (list) return list;
    const { size, tiles } = this.map;
    const n = tiles.length;
    list = [];
    let level: Array<{ moves: number[]; goal: number; dist: Float64Array }> = [{ moves: [], goal: 0, dist: new Float64Array(n) }];
    level[0].dist[from] = 1;
    for (let depth = 1; depth <= this.maxActionsPerTurn; depth++) {
      const nextLevel: typeof level = [];
      for (const node of level) {
        for (let a = 0; a < LAKE_ACTIONS.length; a++) {
          const dist = new Float64Array(n);
          let goal = node.goal;
          const directions = this.slippery ? slipDirections(a) : [a];
          for (let cell = 0; cell < n; cell++) {
            const p = node.dist[cell];
            if (p === 0) continue;
            for (const d of directions) {
              const to = lakeMove(size, cell, d);
              const share = p / directions.length;
              if (tiles[to] === 'G') goal += share;
              else if (tiles[to] !== 'H') dist[to] += share;
            }
          }
          const moves = [...node.moves, a];
          nextLevel.push({ moves, goal, dist });
          const cells = [...dist.keys()].filter((cell) => dist[cell] > 0);
          list.push({ moves, goal, cells: Int32Array.from(cells), mass: Float64Array.from(cells.map((cell) => dist[cell])) });
        }
      }
      level = nextLevel;
    }
    this.outcomes.set(from, list);
    return list;
  }
}
