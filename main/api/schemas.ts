// The arguments' shapes the API validates before a handler runs: each bound here is what a
// refusal names (zod's issues in words, index.ts).
import { z } from 'zod';
import { runNameProblem } from '../../preload/run-labels';
import { type RunSortKeyDto, BULK_RUNS_MAX, COMPARE_RUNS_MAX, isRunColumn, isRunSortKey, RUN_COLUMNS_MAX, RUN_CONDITION_OPS } from '../../preload/contract';
import { conditionProblem, RUN_CONDITIONS_MAX } from '../../preload/run-conditions';
import { RUN_PAGE_MAX_LIMIT } from '../store/repositories/run-page';
import { SPLITS } from '../store/types';
import { MAX_GROUP_SEEDS } from '../../preload/seed-list';

export const overrides = z.array(z.string().regex(/^[^=\s]+=/, 'expected key=value').max(2000)).max(200).optional();
/** A new run's name, held to the rules a rename is (a name that reads as a run id or an option is refused). */
export const runName = z
  .string()
  .superRefine((name, ctx) => {
    const problem = runNameProblem(name.trim());
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  })
  .optional();
export const seeds = z.array(z.number().int().min(0).max(2 ** 31 - 1)).min(1).max(MAX_GROUP_SEEDS).optional();
export const concurrency = z.number().int().min(1).max(64).optional();
/**
 * A config to train from: a YAML file only. Anyone holding the token may name any path, and a
 * config can name any module to load, so nothing else is read as a config.
 */
export const yamlPath = z
  .string()
  .min(1)
  .max(4096)
  .refine((path) => /\.ya?ml$/i.test(path), 'a config must be a YAML file ending in .yaml or .yml');

export const id = z.number().int().positive();
export const compareRunIds = z.array(id).min(1).max(COMPARE_RUNS_MAX, `Compare takes at most ${COMPARE_RUNS_MAX} runs at once; select fewer (a filter, a tag)`);
export const bulkRunIds = z.array(id).min(1).max(BULK_RUNS_MAX);
export const iteration = z.number().int().nonnegative();
export const split = z.enum(SPLITS);
export const metricNames = z.array(z.string().min(1).max(500)).max(1000);
export const runPageQuery = z
  .object({
    search: z.string().max(500).optional(),
    status: z.string().max(100).optional(),
    env: z.string().max(500).optional(),
    algorithm: z.string().max(200).optional(),
    tag: z.string().max(500).optional(),
    where: z
      .array(
        z.strictObject({
          column: z.string().refine(isRunColumn, 'a condition\'s column is a dotted config key (algorithm.adv_estimator) or metric:<name>'),
          op: z.enum(RUN_CONDITION_OPS),
          value: z.union([z.string().max(500), z.number().finite(), z.boolean()]),
        }).check((ctx) => {
          const problem = conditionProblem(ctx.value);
          if (problem !== null) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
        }),
      )
      .max(RUN_CONDITIONS_MAX)
      .optional(),
    sort: z
      .custom<RunSortKeyDto>((s) => typeof s === 'string' && isRunSortKey(s), 'a sort is a built-in column, config:<dotted key> or metric:<name>, e.g. config:algorithm.adv_estimator')
      .optional(),
    descending: z.boolean().optional(),
    columns: z.array(z.string().refine(isRunColumn, 'a column is a dotted config key (algorithm.adv_estimator) or metric:<name>')).max(RUN_COLUMNS_MAX).optional(),
    offset: z.number().int().nonnegative().optional(),
    limit: z.number().int().min(1).max(RUN_PAGE_MAX_LIMIT).optional(),
    withChoices: z.boolean().optional(),
  })
  .strict();
export const episodeFilter = z.strictObject({
  split: split.optional(),
  success: z.boolean().optional(),
  groupId: z.number().int().nonnegative().optional(),
  envTag: z.string().min(1).optional(),
  filteredOut: z.boolean().optional(),
});
