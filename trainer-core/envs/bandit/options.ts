import { z } from 'zod';

/** The options, with the arms' default names given (the reversed variant swaps them). */
export function banditOptionsSchema(loName: string, hiName: string) {
  return z
    .object({
      lo_arm_name: z.string().min(1).default(loName).describe('name of the steady, low-paying arm'),
      hi_arm_name: z.string().min(1).default(hiName).describe('name of the risky arm with the higher expected payout'),
      lo_arm_score: z.number().default(0.1).describe('what the low arm always pays'),
      hi_arm_score: z.number().default(1.0).describe('what the high arm pays when it pays out'),
      hi_arm_loscore: z.number().default(0.0).describe('what the high arm pays otherwise'),
      hi_arm_hiscore_prob: z.number().min(0).max(1).default(0.25).describe('probability that the high arm pays hi_arm_score'),
    })
    .strict();
}

export const banditOptionsSchemaDefault = banditOptionsSchema('Phoenix', 'Dragon');
export type BanditOptions = z.infer<typeof banditOptionsSchemaDefault>;
