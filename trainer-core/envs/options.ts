import { closestName } from '../closest-name';
import { z } from 'zod';
import { EnvConfigError } from './errors';
import type { Env, EnvSpec } from './types';

/** Option keys of a spec whose schema is a zod object; empty for free-form custom schemas. */
export function envOptionKeys(spec: EnvSpec): string[] {
  const schema = spec.optionsSchema as unknown as { shape?: Record<string, unknown> };
  return schema.shape && typeof schema.shape === 'object' ? Object.keys(schema.shape) : [];
}

/**
 * Validates raw options (from YAML or `--set`) against the spec and fills in defaults. Errors
 * name the env, the offending key and, for unknown keys, the closest valid one.
 */
export function parseEnvOptions(spec: EnvSpec, raw: Record<string, unknown> | undefined, where?: string): Record<string, unknown> {
  const result = spec.optionsSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const keys = envOptionKeys(spec);
  const problems = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys
        .map((key) => {
          const hint = keys.length > 0 ? `; did you mean '${closestName(key, keys)}'? (options: ${keys.join(', ')})` : '';
          return `unknown option '${key}'${hint}`;
        })
        .join('; ');
    }
    const where = issue.path.length > 0 ? `option '${issue.path.join('.')}'` : 'options';
    return `${where}: ${issue.message.replace(/^Invalid input: /, '')}`;
  });
  // `where` (a config key) goes in front, so a run's error says where the option was written.
  throw new EnvConfigError(`${where ? `${where}: ` : ''}${spec.type}: ${problems.join('; ')}`);
}

/** Validates the options and makes an env from them. */
export function createEnv(spec: EnvSpec, raw?: Record<string, unknown>): Env {
  return spec.create(parseEnvOptions(spec, raw));
}

export interface EnvOptionInfo {
  key: string;
  /** A short human type, e.g. `integer 2..32`, `boolean`, `[integer, integer]`. */
  type: string;
  /** Undefined when the option has no default (then it is optional or required). */
  default?: unknown;
  required: boolean;
  description: string;
}

type JsonSchema = {
  type?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  items?: JsonSchema | false;
  prefixItems?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

/** The options of a spec for listings (`turnlab envs`, the app's config form), from its zod schema. */
export function describeEnvOptions(spec: EnvSpec): EnvOptionInfo[] {
  let json: JsonSchema;
  try {
    json = z.toJSONSchema(spec.optionsSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  } catch {
    return [];
  }
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([key, prop]) => ({
    key,
    type: typeName(prop),
    default: prop.default,
    required: required.has(key) && prop.default === undefined,
    description: prop.description ?? '',
  }));
}

function typeName(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((v) => String(v)).join(' | ');
  if (schema.const !== undefined) return String(schema.const);
  if (schema.anyOf) return schema.anyOf.map(typeName).join(' | ');
  if (schema.prefixItems) return `[${schema.prefixItems.map(typeName).join(', ')}]`;
  if (schema.type === 'array') return schema.items ? `list of ${typeName(schema.items)}` : 'list';
  if (schema.type === 'integer' || schema.type === 'number') {
    const lo = schema.minimum ?? schema.exclusiveMinimum;
    const hi = schema.maximum;
    const bounded = (v: number | undefined) => v !== undefined && Math.abs(v) < Number.MAX_SAFE_INTEGER;
    if (bounded(lo) || bounded(hi)) {
      const left = bounded(lo) ? `${schema.exclusiveMinimum !== undefined ? '>' : ''}${lo}` : '';
      return `${schema.type} ${left}..${bounded(hi) ? hi : ''}`;
    }
  }
  return schema.type ?? 'any';
}
