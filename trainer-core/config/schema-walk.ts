import { z } from 'zod';
import { closestName } from '../closest-name';

/**
 * Finding one's way through a zod schema by key path, so that unknown keys (in a file or in a
 * `--set`) can be reported with the closest valid key at the same place.
 */

function unwrap(schema: z.ZodType): z.ZodType {
  let current: z.ZodType = schema;
  for (;;) {
    if (current instanceof z.ZodDefault || current instanceof z.ZodOptional || current instanceof z.ZodNullable) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodPipe) {
      current = current.in as z.ZodType;
    } else {
      return current;
    }
  }
}

export type ChildLookup =
  | { kind: 'schema'; schema: z.ZodType }
  /** The key is not valid here; `validKeys` lists the keys that are. */
  | { kind: 'unknown'; validKeys: string[] }
  /** The schema does not look inside this value (free-form maps, scalars). */
  | { kind: 'opaque' };

export function childSchema(schema: z.ZodType, key: string | number): ChildLookup {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodObject) {
    const shape = inner.shape as Record<string, z.ZodType>;
    const child = Object.prototype.hasOwnProperty.call(shape, key) ? shape[String(key)] : undefined;
    return child ? { kind: 'schema', schema: child } : { kind: 'unknown', validKeys: Object.keys(shape) };
  }
  if (inner instanceof z.ZodRecord) return { kind: 'schema', schema: inner.valueType as z.ZodType };
  if (inner instanceof z.ZodArray) return { kind: 'schema', schema: inner.element as z.ZodType };
  if (inner instanceof z.ZodTuple) {
    const items = inner.def.items as z.ZodType[];
    const index = Number(key);
    return Number.isInteger(index) && items[index] ? { kind: 'schema', schema: items[index] } : { kind: 'opaque' };
  }
  return { kind: 'opaque' };
}

/**
 * Whether the schema is a section: a map of keys (an object, or a record such as `custom_envs`)
 * rather than one value.
 */
export function isSection(schema: z.ZodType): boolean {
  const inner = unwrap(schema);
  return inner instanceof z.ZodObject || inner instanceof z.ZodRecord;
}

/** The valid keys of an object schema, or null when the schema is not an object. */
export function objectKeys(schema: z.ZodType): string[] | null {
  const inner = unwrap(schema);
  return inner instanceof z.ZodObject ? Object.keys(inner.shape as Record<string, unknown>) : null;
}

export interface UnknownKey {
  /** Path up to and including the unknown key. */
  path: Array<string | number>;
  suggestion: string | undefined;
}

/** Checks that every key of `path` exists in `schema`; returns the first one that does not. */
export function findUnknownKey(schema: z.ZodType, path: ReadonlyArray<string | number>): UnknownKey | null {
  let current: z.ZodType = schema;
  for (let i = 0; i < path.length; i++) {
    const lookup = childSchema(current, path[i]);
    if (lookup.kind === 'opaque') return null;
    if (lookup.kind === 'unknown') {
      return { path: path.slice(0, i + 1), suggestion: keySuggestion(current, String(path[i]), lookup.validKeys) };
    }
    current = lookup.schema;
  }
  return null;
}

/**
 * What to suggest for `key`, unknown in the object `schema` among `valid` keys: the path below it
 * that ends in `key` (`lr` -> `actor_rollout_ref.actor.optim.lr`), else the closest valid key.
 */
export function keySuggestion(schema: z.ZodType, key: string, valid: readonly string[]): string | undefined {
  const nested = nestedPaths(schema, key);
  return nested.length > 0 ? policyFirst(nested) : closestKey(key, valid);
}

/** Dotted paths below `schema` that end in `key`: a key typed without its sections (`lr`, `ppo_epochs`). */
function nestedPaths(schema: z.ZodType, key: string, prefix: readonly string[] = []): string[] {
  if (prefix.length > 6) return [];
  return (objectKeys(schema) ?? []).flatMap((child) => {
    const lookup = childSchema(schema, child);
    const here = child === key && prefix.length > 0 ? [[...prefix, child].join('.')] : [];
    return lookup.kind === 'schema' ? [...here, ...nestedPaths(lookup.schema, key, [...prefix, child])] : here;
  });
}

/**
 * Of dotted paths that end alike, the one a reader means: `lr` is the policy's rate to a reader
 * of verl's configs, not the warm start's or the critic's; else the shortest.
 */
export function policyFirst(paths: readonly string[]): string {
  const rank = (path: string) => (path.split('.').includes('actor') ? 0 : 1);
  return [...paths].sort((a, b) => rank(a) - rank(b) || a.length - b.length || a.localeCompare(b))[0];
}

export function closestKey(key: string, candidates: readonly string[]): string | undefined {
  return closestName(key, candidates);
}

/** Walks `path` from `schema` and returns the schema there, or undefined when it leaves the schema. */
export function schemaAt(schema: z.ZodType, path: ReadonlyArray<string | number>): z.ZodType | undefined {
  let current: z.ZodType = schema;
  for (const key of path) {
    const lookup = childSchema(current, key);
    if (lookup.kind !== 'schema') return undefined;
    current = lookup.schema;
  }
  return current;
}
