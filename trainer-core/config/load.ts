import { readFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { crossFieldIssues } from './checks';
import { defaultRunConfigInput } from './defaults';
import { checkEnvOptions } from './env-options';
import { ConfigError, formatPath, type ConfigIssue } from './errors';
import { applyOverrides, parseOverride } from './overrides';
import { resolveReferences, wholeValueReferences } from './references';
import { RunConfigSchema, type RunConfig } from './schema';
import { describeZodIssue, tightestBoundIssues } from './zod-issues';
import { YamlSource } from './yaml-source';

/**
 * Reads a YAML run config, applies `--set` overrides, merges the defaults underneath, resolves
 * `${}` references and validates the result. Every problem found is reported at once in a
 * ConfigError whose message names the file and line of each.
 */
export function loadRunConfig(path: string, overrides: readonly string[] = []): RunConfig {
  return loadRunConfigWithSource(path, overrides).cfg;
}

/**
 * A resolved config and its source: the defaults, the file and the overrides merged with every
 * `${}` reference still in place (as YAML). A run keeps the source so that an override given
 * when it is resumed or forked reaches the keys that refer to the overridden one.
 */
export interface RunConfigWithSource {
  cfg: RunConfig;
  sourceYaml: string;
}

export function loadRunConfigWithSource(path: string, overrides: readonly string[] = []): RunConfigWithSource {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'file not found'
        : code === 'EISDIR'
          ? 'it is a folder; give a run config file in it (e.g. configs/bandit.yaml), or a run\'s with turnlab show <run> --config > run.yaml'
          : (error as Error).message.split('\n')[0];
    throw new ConfigError([{ path: [], message: `cannot read the config: ${reason}` }], path);
  }
  return runConfigFromYaml(text, path, overrides);
}

/**
 * A config given as YAML text, checked as a file of that text would be (each problem under its
 * line); `name` is how messages name the text (its path, or the workbench's 'the config text').
 */
export function runConfigFromYaml(text: string, name: string, overrides: readonly string[] = []): RunConfigWithSource {
  const source = new YamlSource(text, name);
  if (source.holdsNothing()) {
    // Training on nothing but the defaults is never what an empty file meant (a save that
    // failed, the wrong file): say so instead of starting a run nobody asked for.
    throw new ConfigError([
      {
        path: [],
        message:
          `${name} is empty: it holds no settings, only blank lines or comments; write the keys to change ` +
          "(e.g. `trainer: {total_training_steps: 50}`), or start from a copy of TurnLab's configs/base.yaml, which lists every key with its default (`--config base` trains it as it is)",
      },
    ]);
  }
  return buildRunConfig(source.toJS(), { source, overrides });
}

/** Validates a config given as an object (e.g. from the API); `source` names it in messages. */
export function parseRunConfig(input: unknown, source?: string, overrides: readonly string[] = []): RunConfig {
  return buildRunConfig(input, { name: source, overrides }).cfg;
}

/** parseRunConfig, also giving the unresolved source (see RunConfigWithSource). */
export function parseRunConfigWithSource(input: unknown, source?: string, overrides: readonly string[] = []): RunConfigWithSource {
  return buildRunConfig(input, { name: source, overrides });
}

/** The resolved config as YAML, for storing with a run and for `turnlab show`. */
export function resolvedConfigToYaml(cfg: RunConfig): string {
  return stringify(cfg, { lineWidth: 0 });
}

interface BuildContext {
  source?: YamlSource;
  name?: string;
  overrides: readonly string[];
}

function buildRunConfig(input: unknown, ctx: BuildContext): RunConfigWithSource {
  const name = ctx.source?.name ?? ctx.name;
  const parsedOverrides = ctx.overrides.map(parseOverride);
  const origins = new Map(parsedOverrides.map((o) => [formatPath(o.path), `--set ${o.text}`]));
  // Problems from --set first, then in file order, so the message reads top to bottom.
  const locate = (issues: ConfigIssue[]): ConfigError =>
    new ConfigError(
      issues
        .map((issue) => locateIssue(issue, ctx.source, origins))
        .sort((a, b) => (a.origin ? -1 : (a.line ?? 1e9)) - (b.origin ? -1 : (b.line ?? 1e9))),
      name,
    );

  const raw = input === null || input === undefined ? {} : input;
  if (!isPlainObject(raw)) {
    throw new ConfigError([{ path: [], message: 'a run config must be a map of keys (e.g. `trainer:`, `agent_proxy:`)' }], name);
  }
  const merged = deepMerge(defaultRunConfigInput(), raw);
  applyOverrides(merged, parsedOverrides, RunConfigSchema);
  const sourceYaml = stringify(merged, { lineWidth: 0 });

  let resolved: unknown;
  try {
    resolved = resolveReferences(merged);
  } catch (error) {
    if (error instanceof ConfigError) throw locate(error.issues);
    throw error;
  }

  const result = RunConfigSchema.safeParse(resolved);
  if (!result.success) {
    const issues = tightestBoundIssues(result.error.issues).flatMap((issue) => describeZodIssue(issue, resolved, RunConfigSchema));
    throw locate(foldCopiedIssues(issues, wholeValueReferences(merged)));
  }
  const envChecked = checkEnvOptions(result.data);
  const problems = [...crossFieldIssues(result.data), ...envChecked.issues];
  if (problems.length > 0) throw locate(problems);
  return { cfg: envChecked.cfg, sourceYaml };
}

/**
 * A key that copies another by `${a.b}` fails whenever its source does, and the user would read
 * the same problem twice, the copy's under a file that never wrote it: report a copy only when its
 * source passes, and then name the source.
 */
function foldCopiedIssues(issues: ConfigIssue[], copies: Map<string, string>): ConfigIssue[] {
  const failing = new Set(issues.map((issue) => formatPath(issue.path)));
  const sourceOf = (key: string): string => {
    const seen = new Set<string>();
    let current = key;
    while (copies.has(current) && !seen.has(current)) {
      seen.add(current);
      current = copies.get(current)!;
    }
    return current;
  };
  return issues.flatMap((issue) => {
    const key = formatPath(issue.path);
    const target = copies.get(key);
    if (target === undefined) return [issue];
    if (failing.has(sourceOf(key))) return [];
    return [{ ...issue, message: `${issue.message} (its value comes from \`\${${target}}\`)` }];
  });
}

/**
 * A key missing from a section the file does not write, which an override made by setting
 * another key in it (`--set algorithm.turn_shaping.coef=0.1` without `gamma`): the override is
 * the cause, not the line of the nearest section the file has.
 */
function sectionOrigin(path: ReadonlyArray<string | number>, source: YamlSource | undefined, origins: Map<string, string>): string | undefined {
  for (let n = path.length - 1; n > 0; n--) {
    const section = path.slice(0, n);
    if (source?.has(section)) return undefined;
    const prefix = `${formatPath(section)}.`;
    for (const [key, origin] of origins) if (key.startsWith(prefix)) return origin;
  }
  return undefined;
}

function locateIssue(issue: ConfigIssue, source: YamlSource | undefined, origins: Map<string, string>): ConfigIssue {
  if (issue.origin || issue.line !== undefined) return issue;
  const originOf = (path: ReadonlyArray<string | number>) => {
    for (let n = path.length; n > 0; n--) {
      const origin = origins.get(formatPath(path.slice(0, n)));
      if (origin) return origin;
    }
    return undefined;
  };
  // A check across keys is filed under one of them; where another key it names (in backticks)
  // came from an override, that override is what made it fail, not the file's line.
  // An unknown key's message names the key it may have meant, which is no cause of it.
  const named = issue.message.startsWith('unknown key') ? [] : [...issue.message.matchAll(/`([A-Za-z_][\w-]*(?:\.[\w-]+)+)`/g)].map((m) => m[1].split('.'));
  const origin = originOf(issue.path) ?? named.map(originOf).find((o) => o !== undefined) ?? sectionOrigin(issue.path, source, origins);
  if (origin) return { ...issue, origin };
  const line = source?.lineOf(issue.path, issue.message.startsWith('unknown key'));
  return line === undefined ? issue : { ...issue, line };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Maps merge key by key; anything else in `over` replaces what is in `base`. */
export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prior = out[key];
    out[key] = isPlainObject(prior) && isPlainObject(value) ? deepMerge(prior, value) : value;
  }
  return out;
}
