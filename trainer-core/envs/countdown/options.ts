import { z } from 'zod';

export const countdownOptionsSchema = z
  .object({
    train_path: z
      .string()
      .optional()
      .describe('JSONL file of instances {"target": n, "nums": [..]}; without it instances are generated from the seed'),
    max_instances: z.number().int().min(1).default(20_000).describe('read at most this many instances from train_path'),
    min_numbers: z.number().int().min(2).max(6).default(3).describe('fewest numbers in a generated instance'),
    max_numbers: z.number().int().min(2).max(6).default(4).describe('most numbers in a generated instance'),
    max_number: z.number().int().min(1).default(99).describe('generated numbers are drawn from 1..max_number'),
    max_target: z.number().int().min(1).default(100).describe('generated targets lie in 1..max_target'),
    operators: z
      .array(z.enum(['+', '-', '*', '/']))
      .min(1)
      .default(['+', '-'])
      .describe('operators that generated instances and the solver use (RAGEN: + and -); answers may use all four'),
  })
  .strict();
export type CountdownOptions = z.infer<typeof countdownOptionsSchema>;
