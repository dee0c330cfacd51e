import { z } from 'zod';

export const mathqaOptionsSchema = z
  .object({
    dataset_path: z
      .string()
      .optional()
      .describe('JSONL file in the MetaMathQA shape {"query", "response" ending "The answer is: ..."}; without it problems are generated'),
    max_attempts: z.number().int().min(1).default(1).describe('answers allowed per question; a correct answer on attempt k pays 1/2^(k-1)'),
  })
  .strict();
export type MathQAOptions = z.infer<typeof mathqaOptionsSchema>;
