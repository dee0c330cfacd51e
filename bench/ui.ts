/**
 * `npm run bench -- ui`: the workbench on a big store, in Debian's Chromium against `turnlab
 * serve`. For each store size (TURNLAB_BENCH_UI_RUNS, default "100"; e.g. "100,10000") it builds
 * the store with bench/big-store.ts (kept in the temp folder, or TURNLAB_BENCH_UI_DIR_<N>, and
 * reused; a half-built one is completed), then times the Runs view (first rows, a search, a
 * select filter, a sort by id and by best validation success, the next page on scrolling to
 * the end), Compare of 20 runs x 3 panels (until every panel has drawn), and Replay of one
 * iteration (until a turn is shown), the median of 3 tries each; it prints the database size,
 * the server's peak memory and the plans and times of the queries those views run.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { buildReason, closeSharedChromium, ensureBuilt, hasChromium, launchBrowser, startServe } from '../tests/e2e/harness';
import { METRIC_NAMES_SQL } from '../main/store/repositories/metrics';
import { runPageSql } from '../main/store/repositories/run-page';
import type { RunPageQueryDto } from '../preload/contract';
import { generateBigStore } from './big-store';

const TRIES = 3;
/** Why a figure can be missing at a store size. */
const NOT_MEASURED: Record<string, string> = { 'runs: scroll, next 100': 'every run fits the first page at this size' };
const PANELS = ['val/Bandit/success', 'train/reward/mean', 'actor/entropy'];

/**
 * The page's document, as far as these measurements use it: the functions below run inside the
 * page (serialised by playwright), and the bench compiles without the DOM library.
 */
interface Element_ {
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<Element_> & Iterable<Element_>;
  scrollTo(x: number, y: number): void;
  scrollHeight: number;
}
interface Document_ {
  querySelector(selector: string): Element_ | null;
  querySelectorAll(selector: string): ArrayLike<Element_> & Iterable<Element_>;
  documentElement: Element_;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timed(work: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

function runCount(dataDir: string): number {
  const file = join(dataDir, 'turnlab.sqlite');
  if (!existsSync(file)) return 0;
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function storeFor(runs: number): string {
  const dataDir = process.env[`TURNLAB_BENCH_UI_DIR_${runs}`] ?? join(tmpdir(), `turnlab-bench-ui-${runs}`);
  const stored = runCount(dataDir);
  if (stored !== runs) {
    if (stored > runs) throw new Error(`${dataDir} holds ${stored} runs, more than ${runs}; remove it or set TURNLAB_BENCH_UI_DIR_${runs}`);
    process.stdout.write(`building a store of ${runs} runs in ${dataDir} (${stored} there) ...\n`);
    const stats = generateBigStore(dataDir, { runs });
    process.stdout.write(`  ${stats.metricRows} metric rows, ${stats.episodes} episodes, ${stats.turns} turns in ${stats.seconds.toFixed(0)} s\n`);
  }
  return dataDir;
}

/** The statements of a Runs page, as the server runs them. */
function pageQueries(label: string, query: RunPageQueryDto): Array<[string, string, Record<string, string | number>]> {
  const sql = runPageSql(query);
  return [
    [`${label}: rows`, sql.rows, sql.params],
    [`${label}: count`, sql.count, sql.params],
  ];
}

const SLOW_QUERIES: Array<[string, string, Record<string, string | number>]> = [
  ...pageQueries('runs page (first)', {}),
  ...pageQueries('runs page (search)', { search: 'sweep-7-' }),
  ...pageQueries('runs page (sort by best val success)', { sort: 'bestValSuccess', descending: true }),
  ...pageQueries('runs page (last page)', { offset: 9800 }),
  ['metric names of a run (x20 for Compare)', METRIC_NAMES_SQL, { run: 1 }],
  ['one series (x60 for Compare 20 x 3)', "SELECT iteration, value, wall_time AS wallTime FROM metrics WHERE run_id = @run AND name = 'actor/entropy' ORDER BY iteration", { run: 1 }],
  ['iterations with episodes (Replay)', 'SELECT DISTINCT iteration FROM episodes WHERE run_id = @run AND evaluation_id IS NULL ORDER BY iteration', { run: 1 }],
  ['episodes of an iteration (Replay)', 'SELECT * FROM episodes WHERE run_id = @run AND iteration = 50 AND evaluation_id IS NULL ORDER BY split, env_tag, env_index', { run: 1 }],
  ['turns of an episode (Replay)', 'SELECT * FROM turns WHERE episode_id = @episode ORDER BY turn_index', { episode: 1 }],
];

function queryPlans(dataDir: string, runs: number): string[] {
  const db = new Database(join(dataDir, 'turnlab.sqlite'), { readonly: true });
  try {
    const middle = Math.max(1, Math.floor(runs / 2));
    const episode = (db.prepare('SELECT MIN(id) AS id FROM episodes WHERE run_id = ?').get(middle) as { id: number }).id;
    return SLOW_QUERIES.flatMap(([label, sql, raw]) => {
      const params = { ...raw, ...('run' in raw ? { run: middle } : {}), ...('episode' in raw ? { episode } : {}) };
      const bound = Object.keys(params).length > 0 ? [params] : [];
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...bound) as Array<{ detail: string }>;
      const statement = db.prepare(sql);
      statement.all(...bound);
      const start = performance.now();
      statement.all(...bound);
      const ms = performance.now() - start;
      return [`  ${label}: ${ms.toFixed(1)} ms`, ...plan.map((row) => `    ${row.detail}`)];
    });
  } finally {
    db.close();
  }
}

async function measure(page: Page, at: (hash: string) => string, url: string, runs: number): Promise<Record<string, number>> {
  const results: Record<string, number[]> = {
    'runs: first rows': [],
    'runs: search': [],
    'runs: filter (select)': [],
    'runs: sort by id': [],
    'runs: sort by best val': [],
    'runs: scroll, next 100': [],
    'compare 20x3': [],
    'replay iteration': [],
  };
  const firstRowIs = () => page.locator('.run-row').first().getAttribute('data-run-id');
  /** Until the first row is another run than `id`. */
  const firstRowChanged = (id: string | null) =>
    page.waitForFunction((before) => (globalThis as unknown as { document: Document_ }).document.querySelector('.run-row')?.getAttribute('data-run-id') !== before, id);
  const rowCount = () => page.locator('.run-row').count();
  for (let i = 0; i < TRIES; i++) {
    await page.goto('about:blank');
    results['runs: first rows'].push(await timed(async () => {
      await page.goto(url);
      await page.locator('.run-row').first().waitFor();
    }));
    await page.waitForLoadState('networkidle');
    const all = await rowCount();
    results['runs: search'].push(await timed(async () => {
      await page.locator('.runs-search').fill('sweep-7-');
      await page.waitForFunction((n) => (globalThis as unknown as { document: Document_ }).document.querySelectorAll('.run-row').length < n, all);
    }));
    await page.locator('.runs-search').fill('');
    await page.waitForFunction((n) => (globalThis as unknown as { document: Document_ }).document.querySelectorAll('.run-row').length >= n, all);

    // The first run is a grpo run: filtering to gae changes the first row.
    let before = await firstRowIs();
    results['runs: filter (select)'].push(await timed(async () => {
      await page.locator('select[name="algorithm"]').selectOption('gae');
      await firstRowChanged(before);
    }));
    before = await firstRowIs();
    await page.locator('select[name="algorithm"]').selectOption('');
    await firstRowChanged(before);

    before = await firstRowIs();
    results['runs: sort by id'].push(await timed(async () => {
      await page.locator('th.sortable[data-sort="id"]').click();
      await firstRowChanged(before);
    }));
    before = await firstRowIs();
    results['runs: sort by best val'].push(await timed(async () => {
      await page.locator('th.sortable[data-sort="bestValSuccess"]').click();
      await firstRowChanged(before);
    }));
    before = await firstRowIs();
    await page.locator('th.sortable[data-sort="id"]').click();
    await firstRowChanged(before);

    // The table asks the server for the next 100 rows as its end comes into view.
    if ((await page.locator('.rows-beyond').count()) > 0) {
      const drawn = await rowCount();
      results['runs: scroll, next 100'].push(await timed(async () => {
        await page.evaluate(() => {
          const root = (globalThis as unknown as { document: Document_ }).document.documentElement;
          root.scrollTo(0, root.scrollHeight);
        });
        await page.waitForFunction((n) => (globalThis as unknown as { document: Document_ }).document.querySelectorAll('.run-row').length > n, drawn);
      }));
    }

    const ids = Array.from({ length: 20 }, (_, k) => 1 + Math.floor((k * runs) / 20));
    const query = `/compare?runs=${ids.join(',')}&${PANELS.map((m) => `metric=${encodeURIComponent(m)}`).join('&')}`;
    await page.goto(at('/runs'));
    await page.locator('.run-row').first().waitFor();
    results['compare 20x3'].push(await timed(async () => {
      await page.goto(at(query));
      const n = PANELS.length;
      await page.waitForFunction(
        (count) =>
          (globalThis as unknown as { document: Document_ }).document.querySelectorAll('.compare-chart[data-y-max]').length === count &&
          [...(globalThis as unknown as { document: Document_ }).document.querySelectorAll('.chart-legend')].filter((l) => l.querySelectorAll('.legend-item').length === 20).length === count,
        n,
      );
    }));

    const runId = ids[10 % ids.length];
    await page.goto(at('/runs'));
    await page.locator('.run-row').first().waitFor();
    results['replay iteration'].push(await timed(async () => {
      await page.goto(at(`/runs/${runId}/replay?iteration=50`));
      await page.locator('.replay-turn').waitFor();
    }));
  }
  return Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v.length ? median(v) : NaN]));
}

export const USAGE = `ui: the workbench on a big store in Chromium: Runs view, Compare of 20 runs, Replay (about half a minute at 100 runs on 2 cores, past the store's first build); takes no arguments
  TURNLAB_BENCH_UI_RUNS   store sizes, e.g. 100,10000 (default 100)
  TURNLAB_BENCH_UI_DIR_<N> where the store of N runs is kept and reused (default: the temporary folder)`;

export default async function uiBenchmark(): Promise<void> {
  if (!hasChromium) {
    process.stdout.write('skipped: Debian\'s Chromium is not installed (apt-get install chromium)\n');
    return;
  }
  const why = buildReason();
  // A build takes a minute on 2 cores and rewrites out/: said before it starts.
  if (why !== null) process.stdout.write(`building the workbench first: ${why}\n`);
  ensureBuilt();
  const sizes = (process.env.TURNLAB_BENCH_UI_RUNS ?? '100').split(',').map((s) => Number(s.trim()));
  const rows: string[] = [];
  for (const runs of sizes) {
    const dataDir = storeFor(runs);
    const serve = await startServe(dataDir);
    const browser = await launchBrowser({ viewport: { width: 1440, height: 900 } });
    try {
      const times = await measure(browser.page, serve.at, serve.url, runs);
      const peak = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${serve.pid}/status`, 'utf8'))?.[1];
      const db = statSync(join(dataDir, 'turnlab.sqlite')).size;
      const counts = new Database(join(dataDir, 'turnlab.sqlite'), { readonly: true });
      const turns = (counts.prepare('SELECT COUNT(*) AS n FROM turns').get() as { n: number }).n;
      counts.close();
      const memory = peak ? `, server peak memory ${(Number(peak) / 1024).toFixed(0)} MB` : '';
      rows.push(`${runs} runs (${turns} turns, database ${(db / 1e6).toFixed(0)} MB${memory}):`);
      for (const [label, ms] of Object.entries(times)) rows.push(`  ${label.padEnd(24)} ${Number.isNaN(ms) ? '     -' : ms.toFixed(0).padStart(6)} ms${Number.isNaN(ms) ? ` (not measured: ${NOT_MEASURED[label] ?? 'nothing to time'})` : ''}`);
      rows.push('  query plans, and a second run of each on the server\'s file (cache warm):');
      rows.push(...queryPlans(dataDir, runs));
    } finally {
      await browser.close();
      await serve.stop();
    }
  }
  // The tests' harness keeps one Chromium for a worker's files; a bench has no worker to end it,
  // and a connected browser would keep this process (and `npm run bench`) alive after its report.
  await closeSharedChromium();
  process.stdout.write(`${rows.join('\n')}\n(median of ${TRIES}; Chromium 1440 x 900, ${new Date().toISOString().slice(0, 10)})\n`);
}
