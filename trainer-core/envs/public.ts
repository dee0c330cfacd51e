/**
 * `turnlab/env`: what a custom environment module imports. Everything here is stable for
 * authors; nothing else under trainer-core/ is. The CLI's loader maps the specifier to this file
 * for modules anywhere on disk, so a module needs neither a relative path into TurnLab nor its
 * own copy of zod (two copies of zod would also hide the options from `turnlab envs`).
 */
import { z } from 'zod';
import type { Env } from './types';

export type { Env, EnvInfo, StepResult, StateRender, GridCell, Cell, TurnBudget } from './types';
export { Rng, deriveSeed } from '../rng';
export { z };

/** What a module's default export describes; `create` gets the options after validation. */
export interface EnvDefinition<Options extends Record<string, unknown> = Record<string, unknown>> {
  /** The name listings and stored runs show, e.g. `guess_number`. */
  type: string;
  description?: string;
  /** Validates and fills in the options; `defineOptions({...})` makes one. Without it options pass as given. */
  optionsSchema?: z.ZodType<Options>;
  /** True when one turn may hold several actions (grid worlds); default false. */
  multiAction?: boolean;
  create(options: Options): Env;
}

/** Types a module's default export; returns it unchanged (the loader checks it when it loads). */
export function defineEnv<Options extends Record<string, unknown>>(definition: EnvDefinition<Options>): EnvDefinition<Options> {
  return definition;
}

/**
 * An options schema from one zod schema per option. Strict, so a misspelt option in a config is
 * an error naming the closest valid one; give every option a `.default(...)` so `{}` is valid.
 */
export function defineOptions<Shape extends z.ZodRawShape>(shape: Shape): z.ZodObject<Shape, z.core.$strict> {
  return z.strictObject(shape);
}

/** The options type a schema made by `defineOptions` produces. */
export type OptionsOf<Schema extends z.ZodType> = z.output<Schema>;
