import { ConfigError, formatPath } from './errors';
import { closestKey } from './schema-walk';

/**
 * `${a.b}` references between config values. A value that is exactly one reference takes the
 * target's value with its type (a number stays a number, a map stays a map); a reference inside
 * longer text is replaced by the target's text. Targets may themselves hold references, and a
 * reference may be built from others (`${custom_envs.${tag}.env_type}`): innermost first.
 */

type Path = Array<string | number>;
type Json = unknown;

const INNERMOST = /\$\{([^${}]*)\}/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class ReferenceResolver {
  private readonly done = new Map<string, Json>();
  private readonly inProgress: string[] = [];
  private readonly inProgressPaths: Path[] = [];

  constructor(private readonly root: Json) {}

  resolveAt(path: Path): Json {
    const key = formatPath(path);
    if (this.done.has(key)) return this.done.get(key);
    const cycleStart = this.inProgress.indexOf(key);
    if (cycleStart >= 0) {
      const cycle = [...this.inProgress.slice(cycleStart), key].map((p) => `\`${p}\``).join(' -> ');
      throw new ConfigError([{ path, message: `reference cycle: ${cycle}` }]);
    }
    this.inProgress.push(key);
    this.inProgressPaths.push(path);
    const value = this.resolveValue(this.lookup(path), path);
    this.inProgress.pop();
    this.inProgressPaths.pop();
    this.done.set(key, value);
    return value;
  }

  private resolveValue(value: Json, path: Path): Json {
    if (typeof value === 'string') return this.resolveString(value, path);
    if (Array.isArray(value)) return value.map((_, i) => this.resolveAt([...path, i]));
    if (isPlainObject(value)) {
      const out: Record<string, Json> = {};
      for (const key of Object.keys(value)) out[key] = this.resolveAt([...path, key]);
      return out;
    }
    return value;
  }

  private resolveString(text: string, path: Path): Json {
    let current = text;
    for (;;) {
      const match = INNERMOST.exec(current);
      if (!match) return current;
      const target = match[1].trim();
      if (target === '') throw new ConfigError([{ path, message: `\`${formatPath(path)}\` has an empty reference \`\${}\`` }]);
      const targetPath = target.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
      const value = this.resolveAt(targetPath);
      if (match[0] === current) return value;
      current = current.slice(0, match.index) + textOf(value, target, path) + current.slice(match.index + match[0].length);
    }
  }

  /** The raw value at `target`, or a clear error naming the referencing key when it is missing. */
  private lookup(target: Path): Json {
    let node: Json = this.root;
    for (let i = 0; i < target.length; i++) {
      const part = target[i];
      const container = node;
      const has = Array.isArray(container)
        ? typeof part === 'number' && part < container.length
        : isPlainObject(container) && Object.prototype.hasOwnProperty.call(container, part);
      if (!has) {
        const keys = isPlainObject(container) ? Object.keys(container) : [];
        const hint = closestKey(String(part), keys);
        const referrer = this.inProgressPaths[this.inProgressPaths.length - 2] ?? [];
        throw new ConfigError([
          {
            path: referrer,
            message:
              `\`${formatPath(referrer)}\` refers to \`\${${formatPath(target)}}\`, which points to nothing: ` +
              `\`${formatPath(target.slice(0, i + 1))}\` does not exist` +
              (hint !== undefined ? `; did you mean \`${formatPath([...target.slice(0, i), hint])}\`?` : ''),
          },
        ]);
      }
      node = (container as Record<string | number, Json>)[part as never];
    }
    return node;
  }
}

function textOf(value: Json, target: string, path: Path): string {
  if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    return String(value);
  }
  throw new ConfigError([
    { path, message: `\`${formatPath(path)}\` puts \`\${${target}}\` inside text, but that value is a list or map` },
  ]);
}

/** Returns a copy of `root` with every reference replaced; throws ConfigError on a cycle or a missing target. */
export function resolveReferences<T>(root: T): T {
  return new ReferenceResolver(root).resolveAt([]) as T;
}

const WHOLE_REFERENCE = /^\$\{\s*([^${}]+?)\s*\}$/;

/** Keys whose whole value is one reference (`critic.ppo_epochs: ${actor_rollout_ref.actor.ppo_epochs}`), each with its target. */
export function wholeValueReferences(root: Json): Map<string, string> {
  const copies = new Map<string, string>();
  const walk = (value: Json, path: Path): void => {
    if (typeof value === 'string') {
      const match = WHOLE_REFERENCE.exec(value);
      if (match) copies.set(formatPath(path), match[1]);
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, [...path, i]));
    } else if (isPlainObject(value)) {
      for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
    }
  };
  walk(root, []);
  return copies;
}
