import { deriveSeed, Rng } from '../../rng';
import { invalidActionResult, matchActionName } from '../actions';
import type { Env, StateRender, StepResult } from '../types';
import { generateSokobanRoom } from './generator';
import { sokobanRoomSize, type SokobanOptions } from './options';
import { renderRoom, roomStateRender, withoutOuterWall } from './render';
import { allBoxesOnTargets, parseRoom, SOKOBAN_ACTIONS, stepCell, TARGET, WALL, type SokobanRoom } from './room';
import { solveSokoban } from './solver';

// gym-sokoban's reward schedule.
const PENALTY_FOR_STEP = -0.1;
const REWARD_BOX_ON_TARGET = 1;
const PENALTY_BOX_OFF_TARGET = -1;
const REWARD_FINISHED = 10;

/** Sokoban with gym-sokoban's push rules and rewards and RAGEN's text symbols. */
export class SokobanEnv implements Env {
  private room: SokobanRoom = { rows: 0, cols: 0, terrain: new Uint8Array(0), player: 0, boxes: [] };
  private steps = 0;
  private readonly rows: number;
  private readonly cols: number;

  constructor(readonly options: SokobanOptions) {
    [this.rows, this.cols] = sokobanRoomSize(options);
  }

  reset(seed: number): string {
    const rng = new Rng(deriveSeed(seed, 'room'));
    const room = generateSokobanRoom(
      { rows: this.rows, cols: this.cols, numBoxes: this.options.num_boxes, searchDepth: this.options.search_depth },
      rng,
    );
    return this.start(room);
  }

  /** Plays a level drawn with the env's own symbols (# _ O X √ P S) instead of a generated one. */
  loadLevel(lines: readonly string[]): string {
    return this.start(parseRoom(lines));
  }

  private start(room: SokobanRoom): string {
    this.room = room;
    this.steps = 0;
    return this.render();
  }

  private get solved(): boolean {
    return allBoxesOnTargets(this.room.terrain, this.room.boxes);
  }

  private get done(): boolean {
    return this.solved || this.steps >= this.options.max_steps;
  }

  private boxesOnTarget(): number {
    return this.room.boxes.filter((b) => this.room.terrain[b] === TARGET).length;
  }

  step(action: string): StepResult {
    const name = matchActionName(action, SOKOBAN_ACTIONS);
    if (name === null) return invalidActionResult(this.render(), this.done);
    if (this.done) {
      return { observation: this.render(), reward: 0, done: true, info: { success: this.solved, actionIsValid: true, actionIsEffective: false } };
    }
    const { rows, cols, terrain, boxes } = this.room;
    const dir = SOKOBAN_ACTIONS.indexOf(name);
    const onTargetBefore = this.boxesOnTarget();
    const next = stepCell(rows, cols, this.room.player, dir);
    let moved = false;
    if (next >= 0 && terrain[next] !== WALL) {
      const box = boxes.indexOf(next);
      if (box < 0) {
        moved = true;
      } else {
        const beyond = stepCell(rows, cols, next, dir);
        if (beyond >= 0 && terrain[beyond] !== WALL && !boxes.includes(beyond)) {
          boxes[box] = beyond;
          moved = true;
        }
      }
      if (moved) this.room.player = next;
    }
    this.steps++;
    const onTargetAfter = this.boxesOnTarget();
    let reward = PENALTY_FOR_STEP;
    if (onTargetAfter > onTargetBefore) reward += REWARD_BOX_ON_TARGET;
    else if (onTargetAfter < onTargetBefore) reward += PENALTY_BOX_OFF_TARGET;
    const success = this.solved;
    if (success) reward += REWARD_FINISHED;
    return {
      observation: this.render(),
      reward,
      done: this.done,
      info: { success, actionIsValid: true, actionIsEffective: moved, boxesOnTarget: onTargetAfter, steps: this.steps },
    };
  }

  render(): string {
    return renderRoom(this.options.outer_wall ? this.room : withoutOuterWall(this.room));
  }

  renderState(): StateRender {
    return roomStateRender(this.room, this.solved);
  }

  instructions(): string {
    return (
      'You are solving the Sokoban puzzle. You are the player and you need to push all boxes onto targets. ' +
      'When you are right next to a box, you push it by moving in its direction. ' +
      'You cannot push a box into a wall or into another box, and you cannot pull a box.'
    );
  }

  legend(): string {
    return '#: wall\n_: floor\nO: target\nX: box\n√: box on target\nP: player\nS: player on target';
  }

  actionNames(): string[] {
    return [...SOKOBAN_ACTIONS];
  }

  /** Shortest solution by breadth-first search over (player, boxes); null if unsolvable or out of moves. */
  solve(): string[] | null {
    const path = solveSokoban({ ...this.room, boxes: [...this.room.boxes] });
    if (path === null || path.length > this.options.max_steps - this.steps) return null;
    return path;
  }

  /** Sokoban is deterministic: 1 when the shortest solution fits the budget and the step limit. */
  optimalSuccessProbability(actionBudget: number): number {
    const path = this.solve();
    return path !== null && path.length <= actionBudget ? 1 : 0;
  }
}
