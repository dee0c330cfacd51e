// A run's config as flat `a.b.c -> value` pairs: the Compare view's config table, the Runs
// table's column menu and the server's suggestions for a misspelt key read keys the same way.

/** Nested objects become dotted keys; arrays and scalars are leaves. */
export function flattenConfig(config: unknown, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const visit = (value: unknown, key: string): void => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.length === 0 && key) out[key] = {};
      for (const [child, inner] of entries) visit(inner, key ? `${key}.${child}` : child);
    } else if (key) {
      out[key] = value;
    } else {
      // A config that is not an object at all still shows up as one row.
      out['(config)'] = value;
    }
  };
  visit(config, prefix);
  return out;
}
