import { deriveSeed, Rng } from '../../rng';
import { invalidActionResult, matchActionName } from '../actions';
import type { Env, StateRender, StepResult, TurnBudget } from '../types';
import { generateLakeMap } from './generator';
import { parseLakeMap, type LakeMap } from './map';
import type { FrozenLakeOptions } from './options';
import { LakeTurnPlanner } from './planner';
import { lakeStateRender, renderLake } from './render';
import { LAKE_ACTIONS, lakeMove, lakeSuccessProbability, shortestLakePath, slipDirections } from './solver';

/**
 * Gym's FrozenLake with RAGEN's map generator and text rendering: holes, start and goal are random
 * per seed; `random_start: false` and `random_goal: false` give gym's corners instead.
 */
export class FrozenLakeEnv implements Env {
  private map: LakeMap = { size: 0, tiles: [] };
  private player = 0;
  private slipRng = new Rng(0);
  /** The turn planner of the current map (its values are cached across the episode's turns). */
  private planner: LakeTurnPlanner | null = null;

  constructor(readonly options: FrozenLakeOptions) {}

  reset(seed: number): string {
    const map = generateLakeMap(this.options.size, this.options.p, new Rng(deriveSeed(seed, 'map')), {
      randomStart: this.options.random_start,
      randomGoal: this.options.random_goal,
    });
    return this.start(map, seed);
  }

  /** Plays on a given map (rows of S/F/H/G) instead of a generated one; slips still follow `seed`. */
  loadMap(rows: readonly string[], seed = 0): string {
    return this.start(parseLakeMap(rows), seed);
  }

  private start(map: LakeMap, seed: number): string {
    // A replayed map keeps its planner: the values depend on the map alone.
    if (this.planner !== null && this.map.tiles.join('') !== map.tiles.join('')) this.planner = null;
    this.map = map;
    this.player = map.tiles.indexOf('S');
    this.slipRng = new Rng(deriveSeed(seed, 'slip'));
    return this.render();
  }

  private get tile() {
    return this.map.tiles[this.player];
  }

  private get finished(): boolean {
    return this.tile === 'H' || this.tile === 'G';
  }

  step(action: string): StepResult {
    const name = matchActionName(action, LAKE_ACTIONS);
    if (name === null) return invalidActionResult(this.render(), this.finished);
    if (this.finished) {
      return { observation: this.render(), reward: 0, done: true, info: { success: this.tile === 'G', actionIsValid: true, actionIsEffective: false } };
    }
    const intended = LAKE_ACTIONS.indexOf(name);
    const taken = this.options.is_slippery ? slipDirections(intended)[this.slipRng.int(3)] : intended;
    const before = this.player;
    this.player = lakeMove(this.map.size, before, taken);
    const success = this.tile === 'G';
    return {
      observation: this.render(),
      reward: success ? 1 : 0,
      done: this.finished,
      info: { success, actionIsValid: true, actionIsEffective: this.player !== before, actionTaken: LAKE_ACTIONS[taken] },
    };
  }

  render(): string {
    return renderLake(this.map, this.player);
  }

  renderState(): StateRender {
    return lakeStateRender(this.map, this.player);
  }

  instructions(): string {
    const slip = this.options.is_slippery
      ? ' The ice is slippery: a move goes the intended way only 1/3 of the time, and 1/3 each to either side.'
      : '';
    return `You are solving the FrozenLake puzzle. Walk from your position to the goal without falling into a hole.${slip} Moving into the edge leaves you where you are.`;
  }

  legend(): string {
    return 'P: player\n_: frozen\nO: hole\nG: goal\nX: player in hole\n√: player on goal';
  }

  actionNames(): string[] {
    return [...LAKE_ACTIONS];
  }

  /**
   * The shortest path to the goal. On slippery ice no fixed sequence is optimal (the best move
   * depends on where you slipped), so it returns null there: use optimalSuccessProbability.
   */
  solve(): string[] | null {
    if (this.options.is_slippery) return null;
    return shortestLakePath(this.map, this.player);
  }

  /** Moves on the shortest path, slipping or not: on slippery ice it is the distance a lucky walk needs. */
  distanceToGoal(): number | null {
    return shortestLakePath(this.map, this.player)?.length ?? null;
  }

  planTurn(budget: TurnBudget): string[] | null {
    if (this.planner === null || this.planner.maxActionsPerTurn !== budget.maxActionsPerTurn) {
      this.planner = new LakeTurnPlanner(this.map, this.options.is_slippery, budget.maxActionsPerTurn);
    }
    const plan = this.planner.plan(this.player, budget.turnsLeft, budget.actionsLeft);
    return plan.actions.length > 0 ? plan.actions : null;
  }

  optimalSuccessProbability(actionBudget: number): number {
    return lakeSuccessProbability(this.map, this.player, this.options.is_slippery, actionBudget);
  }
}
