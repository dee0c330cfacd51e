import { parse } from 'yaml';
import type { z } from 'zod';
import { ConfigError, formatPath } from './errors';
import { findUnknownKey, isSection, objectKeys, schemaAt } from './schema-walk';
import { unknownKeyMessage } from './foreign-keys';

export interface Override {
  path: Array<string | number>;
  value: unknown;
  /** The override as the user wrote it, for error messages. */
  text: string;
}

/**
 * Parses `a.b=value`; the value is read as YAML, so `3` is a number, `true` a boolean, `[A, B]` a
 * list, and text that is not valid YAML is taken as a string. Hydra's `+a.b=value` and
 * `++a.b=value` (add, add or replace), pasted from verl's scripts, are the same here; its `~a.b`
 * (delete) has no counterpart and is refused.
 */
export function parseOverride(written: string): Override {
  const origin = `--set ${written}`;
  if (written.startsWith('~')) {
    const key = written.slice(1).split('=')[0];
    throw new ConfigError([{ path: [], origin, message: `deleting a key (Hydra's ~key) is not supported; set it to another value (${key}=...) or leave it out of the config file` }]);
  }
  const text = written.replace(/^\+\+?/, '');
  const eq = text.indexOf('=');
  if (eq <= 0) {
    throw new ConfigError([{ path: [], origin, message: 'expected key.path=value, e.g. --set agent_proxy.max_turn=3' }]);
  }
  const keyText = text.slice(0, eq).trim();
  const parts = keyText.split('.');
  if (parts.some((part) => part === '')) {
    throw new ConfigError([{ path: [], origin, message: `\`${keyText}\` is not a key path (empty part between dots)` }]);
  }
  const valueText = text.slice(eq + 1);
  let value: unknown;
  try {
    value = parse(valueText);
  } catch {
    // Text YAML cannot read as a value (`,`, `@x`) is meant literally.
    value = valueText;
  }
  return { path: parts.map((part) => (/^\d+$/.test(part) ? Number(part) : part)), value, text };
}

/**
 * Applies overrides to a raw config in place, after checking every key against the schema so a
 * typo names the closest valid key instead of being silently added.
 */
export function applyOverrides(raw: Record<string, unknown>, overrides: readonly Override[], schema: z.ZodType): void {
  for (const override of overrides) {
    const unknown = keyPaths(schema, override.path, override.value).map((path) => findUnknownKey(schema, path)).find((u) => u !== null && u !== undefined);
    if (unknown) {
      throw new ConfigError([
        {
          path: unknown.path,
          origin: `--set ${override.text}`,
          message: unknownKeyMessage(unknown.path, unknown.suggestion, override.path),
        },
      ]);
    }
    checkSectionValue(schema, override);
    setIn(raw, override.path, mergedWith(valueAt(raw, override.path), override.value));
  }
}

/**
 * `--set trainer=5` would replace the whole `trainer` section with a number, and the failure
 * would surface later somewhere unrelated (a `${trainer.seed}` reference): refuse it here,
 * naming the key and what it takes.
 */
function checkSectionValue(schema: z.ZodType, override: Override): void {
  const target = schemaAt(schema, override.path);
  if (!target || !isSection(target)) return;
  const value = override.value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return;
  if ((value === null || value === undefined) && target.safeParse(value).success) return;
  const key = formatPath(override.path);
  // An example key that takes the value given (trainer=5: trainer.total_training_steps, not
  // trainer.project_name), else the section's first.
  const keys = objectKeys(target) ?? [];
  const takes = (name: string) => {
    const child = schemaAt(schema, [...override.path, name]);
    return child !== undefined && !isSection(child) && child.safeParse(value).success;
  };
  const example = keys.find(takes) ?? keys[0];
  const valueText = override.text.slice(override.text.indexOf('=') + 1);
  throw new ConfigError([
    {
      path: override.path,
      origin: `--set ${override.text}`,
      message:
        `\`${key}\` is a section and expects a map of its keys, not ${JSON.stringify(value) ?? valueText}; ` +
        (example ? `set one of them, e.g. --set ${key}.${example}=${valueText}` : `set one entry, e.g. --set ${key}.<name>.<key>=${valueText}`),
    },
  ]);
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every key path a value sets: a section's keys given as a map are checked one by one, as if each were set alone. */
function keyPaths(schema: z.ZodType, path: ReadonlyArray<string | number>, value: unknown): Array<Array<string | number>> {
  const target = schemaAt(schema, path);
  if (!isMap(value) || Object.keys(value).length === 0 || !target || !isSection(target)) return [[...path]];
  return Object.entries(value).flatMap(([key, inner]) => keyPaths(schema, [...path, key], inner));
}

/**
 * A map merges into the map already there, as Hydra's `trainer={a: 1}` merges (OmegaConf.update
 * with merge): replacing the section would drop every key it does not name. Lists and scalars replace.
 */
function mergedWith(existing: unknown, value: unknown): unknown {
  if (!isMap(existing) || !isMap(value)) return value;
  const merged: Record<string, unknown> = { ...existing };
  for (const [key, inner] of Object.entries(value)) merged[key] = mergedWith(existing[key], inner);
  return merged;
}

function valueAt(root: Record<string, unknown>, path: ReadonlyArray<string | number>): unknown {
  let node: unknown = root;
  for (const key of path) {
    if (!isMap(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

function setIn(root: Record<string, unknown>, path: ReadonlyArray<string | number>, value: unknown): void {
  let node: Record<string | number, unknown> = root;
  for (let i = 0; i < path.length - 1; i++) {
    const next = node[path[i]];
    if (typeof next !== 'object' || next === null) node[path[i]] = {};
    node = node[path[i]] as Record<string | number, unknown>;
  }
  node[path[path.length - 1]] = value;
}
