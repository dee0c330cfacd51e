import { existsSync, statSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { z } from 'zod';
import { describe } from './env-shapes';
import { EnvConfigError } from './errors';
import { guardEnv } from './guarded-env';
import { importEnvModule } from './module-import';
import { missingPackageHint, nearbyModuleHint } from './nearby-module';
import type { Env, EnvSpec } from './types';

/**
 * Custom environments: a JS/TS module whose default export is either
 *  - an EnvSpec-like object `{ type, description?, create(options), optionsSchema?, multiAction? }`
 *    (optionsSchema: a zod schema, or anything with `parse(raw) => options`; without one the
 *    options are passed through as given), or
 *  - an Env class, made with `new Class(options)`; its static `type`, `description`,
 *    `optionsSchema` and `multiAction` are used when present (type defaults to the file name).
 * Loading probes one instance (reset, step, render, ...) so a module that does not fit is
 * refused at load time with a message naming the method and what it returned.
 */
const REQUIRED_METHODS = ['reset', 'step', 'render', 'renderState', 'instructions', 'legend', 'actionNames'] as const;
const OPTIONAL_METHODS = ['solve', 'planTurn', 'optimalSuccessProbability', 'distanceToGoal'] as const;

const cache = new Map<string, Promise<EnvSpec>>();

/**
 * Loads a custom env module, probes one instance, and returns its spec; the envs it creates are
 * guarded, so a bad call during training fails with one line naming module, call and seed.
 */
export async function loadCustomEnvSpec(modulePath: string): Promise<EnvSpec> {
  const absolute = resolve(modulePath);
  let pending = cache.get(absolute);
  if (!pending) {
    pending = readCustomEnvSpec(absolute).then((spec) => {
      const label = `custom environment ${absolute}`;
      const guarded: EnvSpec = { ...spec, create: (options) => guardEnv(createChecked(spec, options, label), label) };
      probe(guarded, label);
      return guarded;
    });
    cache.set(absolute, pending);
    pending.catch(() => cache.delete(absolute));
  }
  return pending;
}

/** Imports a module and reads its default export into a spec, without probing or guarding its envs. */
export async function readCustomEnvSpec(modulePath: string): Promise<EnvSpec> {
  const absolute = resolve(modulePath);
  const label = `custom environment ${absolute}`;
  if (!existsSync(absolute)) throw new EnvConfigError(`${label}: file not found${nearbyModuleHint(absolute)}`);
  if (statSync(absolute).isDirectory()) throw new EnvConfigError(`${label}: is a folder; give the module file in it (e.g. ${join(absolute, 'env.ts')})`);
  let module: Record<string, unknown>;
  try {
    module = await importEnvModule(absolute);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new EnvConfigError(`${label}: could not be imported: ${reason.replace(/\s*\n\s*/g, ' ')}${missingPackageHint(reason, absolute)}`);
  }
  return toSpec(module.default, absolute, label);
}

function toSpec(exported: unknown, absolute: string, label: string): EnvSpec {
  const shape = 'export default { type, description, create(options) } or an Env class';
  if (exported === undefined) throw new EnvConfigError(`${label}: has no default export; ${shape}`);
  if (typeof exported === 'function') {
    const EnvClass = exported as (new (options: Record<string, unknown>) => Env) & Record<string, unknown>;
    return {
      type: typeof EnvClass.type === 'string' ? EnvClass.type : basename(absolute, extname(absolute)),
      description: typeof EnvClass.description === 'string' ? EnvClass.description : '',
      optionsSchema: toSchema(EnvClass.optionsSchema, label),
      create: (options) => new EnvClass(options),
      multiAction: EnvClass.multiAction === true,
    };
  }
  if (typeof exported !== 'object' || exported === null) {
    throw new EnvConfigError(`${label}: the default export is ${describe(exported)}; ${shape}`);
  }
  const candidate = exported as Record<string, unknown>;
  if (typeof candidate.type !== 'string' || candidate.type === '') {
    throw new EnvConfigError(`${label}: the default export needs a 'type' name (a non-empty string), got ${describe(candidate.type)}`);
  }
  if (typeof candidate.create !== 'function') {
    throw new EnvConfigError(`${label}: the default export needs a create(options) function, got ${describe(candidate.create)}`);
  }
  if (candidate.multiAction !== undefined && typeof candidate.multiAction !== 'boolean') {
    throw new EnvConfigError(`${label}: 'multiAction' must be true or false, got ${describe(candidate.multiAction)}`);
  }
  const create = candidate.create as (options: Record<string, unknown>) => Env;
  return {
    type: candidate.type,
    description: typeof candidate.description === 'string' ? candidate.description : '',
    optionsSchema: toSchema(candidate.optionsSchema, label),
    create: (options) => create.call(candidate, options),
    multiAction: candidate.multiAction === true,
  };
}

function toSchema(schema: unknown, label: string): z.ZodType<Record<string, unknown>> {
  if (schema === undefined) return z.record(z.string(), z.unknown());
  if (schema instanceof z.ZodType) return schema as z.ZodType<Record<string, unknown>>;
  const parse = (schema as { parse?: unknown } | null)?.parse;
  if (typeof parse !== 'function') {
    throw new EnvConfigError(`${label}: 'optionsSchema' must be a zod schema or have a parse(options) method, got ${describe(schema)}`);
  }
  return z.record(z.string(), z.unknown()).transform((raw, ctx) => {
    try {
      return parse.call(schema, raw) as Record<string, unknown>;
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
      return z.NEVER;
    }
  });
}

/** Makes one env with default options and calls every method once (the guard checks what comes back). */
function probe(spec: EnvSpec, label: string): void {
  const defaults = spec.optionsSchema.safeParse({});
  if (!defaults.success) {
    throw new EnvConfigError(`${label}: its options do not validate when empty (${defaults.error.issues.map((i) => i.message).join('; ')}); give every option a default`);
  }
  const env = spec.create(defaults.data);
  env.reset(0);
  env.render();
  env.instructions();
  env.legend();
  env.renderState();
  const names = env.actionNames();
  env.step(Array.isArray(names) ? names[0] : '1');
}

/** Calls a spec's create(options) and checks the instance has every method (the guard checks what they return). */
export function createChecked(spec: EnvSpec, options: Record<string, unknown>, label: string): Env {
  let env: unknown;
  try {
    env = spec.create(options);
  } catch (error) {
    if (error instanceof EnvConfigError) throw error;
    throw new EnvConfigError(`${label}: create(options) threw: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof env !== 'object' || env === null) throw new EnvConfigError(`${label}: create(options) returned ${describe(env)}; expected an environment object`);
  const methods = env as Record<string, unknown>;
  for (const method of REQUIRED_METHODS) {
    if (typeof methods[method] !== 'function') {
      throw new EnvConfigError(`${label}: the environment has no ${method}() method (found ${describe(methods[method])})`);
    }
  }
  for (const method of OPTIONAL_METHODS) {
    if (methods[method] !== undefined && typeof methods[method] !== 'function') {
      throw new EnvConfigError(`${label}: ${method} must be a method when present, got ${describe(methods[method])}`);
    }
  }
  return env as Env;
}
