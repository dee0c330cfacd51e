// Which charts the Run view shows first. A run logs 60 and more metrics; a researcher looks at
// these five first (RAGEN's names, `<split>/<env tag>/<name>`), one chart per env tag, with the
// optimal policy's success drawn beside validation success where the env has a solver.

export interface HeadlineChart {
  /** A stable key, also the chart's test id. */
  key: string;
  title: string;
  /** The metric names drawn in this chart, the first being the main one. */
  names: string[];
}

interface HeadlineKind {
  key: string;
  title: string;
  split: 'train' | 'val';
  metric: string;
  /** Drawn with it when logged (the optimal policy's line). */
  companion?: string;
}

const KINDS: HeadlineKind[] = [
  { key: 'val-success', title: 'validation success', split: 'val', metric: 'success', companion: 'optimal_success' },
  { key: 'train-success', title: 'train success', split: 'train', metric: 'success' },
  { key: 'reward', title: 'reward', split: 'train', metric: 'reward' },
  { key: 'format-ok', title: 'well-formed answers', split: 'train', metric: 'format_ok' },
  { key: 'response-length', title: 'response length (tokens)', split: 'train', metric: 'response_length' },
];

/** The env tags of `<split>/<tag>/<metric>` names present, in first-seen order. */
function tagsOf(names: readonly string[], split: string, metric: string): string[] {
  const tags: string[] = [];
  for (const name of names) {
    const parts = name.split('/');
    if (parts.length === 3 && parts[0] === split && parts[2] === metric && !tags.includes(parts[1])) tags.push(parts[1]);
  }
  return tags;
}

/** The headline charts for the metrics a run logged, in the order above. */
export function headlineCharts(names: readonly string[]): HeadlineChart[] {
  const present = new Set(names);
  const multiTag = new Set(names.filter((n) => /^(train|val)\/[^/]+\/success$/.test(n)).map((n) => n.split('/')[1])).size > 1;
  const charts: HeadlineChart[] = [];
  for (const kind of KINDS) {
    for (const tag of tagsOf(names, kind.split, kind.metric)) {
      const main = `${kind.split}/${tag}/${kind.metric}`;
      const companion = kind.companion ? `${kind.split}/${tag}/${kind.companion}` : undefined;
      charts.push({
        key: multiTag ? `${kind.key}-${tag}` : kind.key,
        title: multiTag ? `${kind.title} · ${tag}` : kind.title,
        names: companion && present.has(companion) ? [main, companion] : [main],
      });
    }
  }
  return charts;
}

/** Whether `name` matches a search: every space-separated word is part of it (case-insensitive). */
export function matchesSearch(name: string, search: string): boolean {
  const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const lower = name.toLowerCase();
  return words.every((word) => lower.includes(word));
}
