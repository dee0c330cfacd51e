import { z } from 'zod';

export const frozenLakeOptionsSchema = z
  .object({
    size: z.number().int().min(2).max(32).default(4).describe('side length of the square map'),
    p: z.number().gt(0).max(1).default(0.8).describe('probability that a generated tile is frozen rather than a hole'),
    is_slippery: z.boolean().default(true).describe('moves slip: intended direction 1/3, each perpendicular direction 1/3'),
    random_start: z.boolean().default(true).describe("generated maps start on a random square (RAGEN); false: top-left, as gym"),
    random_goal: z
      .union([z.boolean(), z.literal('corner')])
      .default(true)
      .describe("generated maps put the goal on a random square (RAGEN); false: bottom-right, as gym; corner: one of the four corners"),
  })
  .strict();
export type FrozenLakeOptions = z.infer<typeof frozenLakeOptionsSchema>;
