// Display helpers shared by the views.

export function formatTime(ms: number | null): string {
  if (ms === null) return '-';
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * A metric in a table cell: '-' for a NaN (null), else four significant digits without trailing
 * zeros (`0.125`, `-0.1`, `0.03125`), as `turnlab runs --columns` prints them.
 */
export function formatMetricValue(value: number | null): string {
  return value === null ? '-' : String(Number(value.toPrecision(4)));
}

/**
 * A mean ± std as a reader quotes it: the std to three significant digits and the mean to the
 * same decimal place (`0.500 ± 0.707`, as `turnlab sweeps` prints it), not each to five.
 */
export function formatMeanStd(value: { mean: number; std: number } | null): string {
  if (value === null) return '–';
  if (!Number.isFinite(value.std) || value.std === 0) return `${String(Number(value.mean.toPrecision(5)))} ± 0`;
  const decimals = Math.min(20, Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value.std)))));
  return `${value.mean.toFixed(decimals)} ± ${value.std.toFixed(decimals)}`;
}

export function formatPercent(value: number | null): string {
  return value === null ? '-' : `${(value * 100).toFixed(1)}%`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** Metric names grouped by their first path segment (`train/`, `val/`, `actor/`, ...), in order. */
export function groupByPrefix(names: string[]): Array<{ prefix: string; names: string[] }> {
  const groups = new Map<string, string[]>();
  for (const name of [...names].sort()) {
    const slash = name.indexOf('/');
    const prefix = slash > 0 ? name.slice(0, slash) : 'other';
    groups.set(prefix, [...(groups.get(prefix) ?? []), name]);
  }
  return [...groups.entries()].map(([prefix, members]) => ({ prefix, names: members }));
}

/**
 * Text made safe for an HTML string (ECharts tooltips are HTML): run names, metric names and
 * other user text must show as text, never as markup.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
