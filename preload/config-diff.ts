// Runs' configs as flat `a.b.c -> value` pairs and side by side: the Compare view's config
// table, `turnlab diff`, the Runs table's column menu and the server's suggestions for a
// misspelt key read keys the same way.

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

/** Marks a key one run has and another lacks. */
export const ABSENT = '—';

export function formatConfigValue(value: unknown): string {
  if (value === undefined) return ABSENT;
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export interface ConfigRow {
  key: string;
  /** One display value per config, in the order given. */
  values: string[];
  differs: boolean;
}

/** One row per key of any config, sorted by key; `onlyDiffering` drops the rows all agree on. */
export function configTable(configs: readonly unknown[], onlyDiffering: boolean): ConfigRow[] {
  const flat = configs.map((config) => flattenConfig(config));
  const keys = [...new Set(flat.flatMap((f) => Object.keys(f)))].sort();
  const rows = keys.map((key) => {
    const values = flat.map((f) => formatConfigValue(Object.hasOwn(f, key) ? f[key] : undefined));
    return { key, values, differs: values.some((v) => v !== values[0]) };
  });
  return onlyDiffering ? rows.filter((row) => row.differs) : rows;
}
