import { existsSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { EnvConfigError } from './errors';
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
const OPTIONAL_METHODS = ['solve', 'optimalSuccessProbability'] as const;

const cache = new Map<string, Promise<EnvSpec>>();

export async function loadCustomEnvSpec(modulePath: string): Promise<EnvSpec> {
  const absolute = resolve(modulePath);
  let pending = cache.get(absolute);
  if (!pending) {
    pending = load(absolute);
    cache.set(absolute, pending);
    pending.catch(() => cache.delete(absolute));
  }
  return pending;
}

async function load(absolute: string): Promise<EnvSpec> {
  const label = `custom environment ${absolute}`;
  if (!existsSync(absolute)) throw new EnvConfigError(`${label}: file not found`);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    throw new EnvConfigError(`${label}: could not be imported: ${error instanceof Error ? error.message : String(error)}`);
  }
  const spec = toSpec(module.default, absolute, label);
  probe(spec, label);
  return spec;
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

/** Makes one env with default options and calls every method once, checking what comes back. */
function probe(spec: EnvSpec, label: string): void {
  const defaults = spec.optionsSchema.safeParse({});
  if (!defaults.success) {
    throw new EnvConfigError(`${label}: its options do not validate when empty (${defaults.error.issues.map((i) => i.message).join('; ')}); give every option a default`);
  }
  const env = call(label, 'create(options)', () => spec.create(defaults.data)) as Record<string, unknown>;
  if (typeof env !== 'object' || env === null) throw new EnvConfigError(`${label}: create(options) returned ${describe(env)}; expected an environment object`);
  for (const method of REQUIRED_METHODS) {
    if (typeof env[method] !== 'function') {
      throw new EnvConfigError(`${label}: the environment has no ${method}() method (found ${describe(env[method])})`);
    }
  }
  for (const method of OPTIONAL_METHODS) {
    if (env[method] !== undefined && typeof env[method] !== 'function') {
      throw new EnvConfigError(`${label}: ${method} must be a method when present, got ${describe(env[method])}`);
    }
  }
  const instance = env as unknown as Env;
  expect(label, 'reset(0)', call(label, 'reset(0)', () => instance.reset(0)), (v) => typeof v === 'string', 'a string (the first observation)');
  expect(label, 'render()', call(label, 'render()', () => instance.render()), (v) => typeof v === 'string', 'a string');
  expect(label, 'instructions()', call(label, 'instructions()', () => instance.instructions()), (v) => typeof v === 'string', 'a string');
  expect(label, 'legend()', call(label, 'legend()', () => instance.legend()), (v) => typeof v === 'string', "a string ('' when there is none)");
  const names = call(label, 'actionNames()', () => instance.actionNames());
  expect(label, 'actionNames()', names, (v) => v === null || (Array.isArray(v) && v.length > 0 && v.every((n) => typeof n === 'string')), 'null or a non-empty list of strings');
  expect(label, 'renderState()', call(label, 'renderState()', () => instance.renderState()), isStateRender, "{ kind: 'text', text } or { kind: 'grid', rows, player, boxes, targets }");
  const action = Array.isArray(names) ? names[0] : '1';
  expect(label, `step(${JSON.stringify(action)})`, call(label, 'step()', () => instance.step(action)), isStepResult,
    '{ observation: string, reward: number, done: boolean, info: { success: boolean, actionIsValid: boolean, actionIsEffective: boolean } }');
}

function call(label: string, what: string, fn: () => unknown): unknown {
  try {
    return fn();
  } catch (error) {
    if (error instanceof EnvConfigError) throw error;
    throw new EnvConfigError(`${label}: ${what} threw: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function expect(label: string, what: string, value: unknown, ok: (v: unknown) => boolean, expected: string): void {
  if (!ok(value)) throw new EnvConfigError(`${label}: ${what} returned ${describe(value)}; expected ${expected}`);
}

function isStepResult(value: unknown): boolean {
  const v = value as { observation?: unknown; reward?: unknown; done?: unknown; info?: Record<string, unknown> } | null;
  return (
    typeof v === 'object' && v !== null && typeof v.observation === 'string' && typeof v.reward === 'number' &&
    Number.isFinite(v.reward) && typeof v.done === 'boolean' && typeof v.info === 'object' && v.info !== null &&
    typeof v.info.success === 'boolean' && typeof v.info.actionIsValid === 'boolean' && typeof v.info.actionIsEffective === 'boolean'
  );
}

function isStateRender(value: unknown): boolean {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null) return false;
  if (v.kind === 'text') return typeof v.text === 'string';
  if (v.kind === 'grid') return Array.isArray(v.rows) && Array.isArray(v.boxes) && Array.isArray(v.targets) && 'player' in v;
  return false;
}

/** A short description of a value for error messages: its type and a clipped JSON form. */
export function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'function') return 'a function';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  if (text.length > 80) text = `${text.slice(0, 77)}...`;
  const kind = Array.isArray(value) ? 'array' : typeof value;
  return `${kind} ${text}`;
}
