import { z } from 'zod';
import { EnvConfigError } from '../errors';

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

/** Room dimensions after RAGEN's rule that dim_x and dim_y, given together, replace dim_room. */
export function sokobanRoomSize(options: SokobanOptions): [rows: number, cols: number] {
  if ((options.dim_x === undefined) !== (options.dim_y === undefined)) {
    throw new EnvConfigError('sokoban: set both dim_x and dim_y, or neither (then dim_room is used)');
  }
  return options.dim_x !== undefined && options.dim_y !== undefined ? [options.dim_x, options.dim_y] : options.dim_room;
}
