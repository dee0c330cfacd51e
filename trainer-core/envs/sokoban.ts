import { z } from 'zod';
import { deriveSeed, Rng } from '../rng';
import { invalidActionResult, matchActionName } from './actions';
import { EnvConfigError } from './errors';
import { generateSokobanRoom } from './sokoban-generator';
import {
  allBoxesOnTargets,
  parseRoom,
  renderRoom,
  withoutOuterWall,
  SOKOBAN_ACTIONS,
  stepCell,
  TARGET,
  targetsOf,
  WALL,
  type SokobanRoom,
} from './sokoban-room';
import { solveSokoban } from './sokoban-solver';
import type { Cell, Env, EnvSpec, GridCell, StateRender, StepResult } from './types';

export const sokobanOptionsSchema = z
  .object({
    dim_room: z
      .tuple([z.number().int().min(4).max(20), z.number().int().min(4).max(20)])
      .default([6, 6])
      .describe('room size [rows, cols], walls included'),
    dim_x: z.number().int().min(4).max(20).optional().describe('rows; with dim_y, overrides dim_room (RAGEN)'),
    dim_y: z.number().int().min(4).max(20).optional().describe('columns; with dim_x, overrides dim_room (RAGEN)'),
    num_boxes: z.number().int().min(1).max(10).default(1).describe('boxes (and targets) per room'),
    max_steps: z.number().int().min(1).default(100).describe('the episode ends after this many moves'),
    search_depth: z.number().int().min(1).default(300).describe('deepest reverse-play sequence when generating a room'),
    outer_wall: z
      .boolean()
      .default(true)
      .describe('false: the text leaves out the ring of wall around the room (every generated room has one), 20 of a 6x6 room\'s 36 cells'),
  })
  .strict();
export type SokobanOptions = z.infer<typeof sokobanOptionsSchema>;

// gym-sokoban's reward schedule.
const PENALTY_FOR_STEP = -0.1;
const REWARD_BOX_ON_TARGET = 1;
const PENALTY_BOX_OFF_TARGET = -1;
const REWARD_FINISHED = 10;

/** Room dimensions after RAGEN's rule that dim_x and dim_y, given together, replace dim_room. */
export function sokobanRoomSize(options: SokobanOptions): [rows: number, cols: number] {
  if ((options.dim_x === undefined) !== (options.dim_y === undefined)) {
    throw new EnvConfigError('sokoban: set both dim_x and dim_y, or neither (then dim_room is used)');
  }
  return options.dim_x !== undefined && options.dim_y !== undefined ? [options.dim_x, options.dim_y] : options.dim_room;
}

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
    const { rows, cols, terrain } = this.room;
    const cell = (i: number): Cell => [Math.floor(i / cols), i % cols];
    const grid: GridCell[][] = [];
    for (let r = 0; r < rows; r++) {
      const row: GridCell[] = [];
      for (let c = 0; c < cols; c++) {
        const t = terrain[r * cols + c];
        row.push(t === WALL ? 'wall' : t === TARGET ? 'target' : 'floor');
      }
      grid.push(row);
    }
    return {
      kind: 'grid',
      rows: grid,
      player: cell(this.room.player),
      boxes: this.room.boxes.map(cell),
      targets: targetsOf(this.room).map(cell),
      status: this.solved ? 'solved' : 'playing',
    };
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

export const sokobanSpec: EnvSpec<SokobanOptions> = {
  type: 'sokoban',
  description: 'Sokoban: push every box onto a target; rooms generated by reverse play (gym-sokoban rules and rewards)',
  optionsSchema: sokobanOptionsSchema,
  create: (options) => new SokobanEnv(options),
  multiAction: true,
};
