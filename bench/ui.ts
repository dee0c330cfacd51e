/**
 * `npm run bench -- ui`: the workbench on a big store, in Debian's Chromium against `turnlab
 * serve`. For each store size (TURNLAB_BENCH_UI_RUNS, default "100"; e.g. "100,1000") it builds
 * the store with bench/big-store.ts (kept in the temp folder and reused), then times the Runs view
 * (first rows, a search, a sort, scrolling to the last row), Compare of 20 runs x 3 panels (until
 * every panel has drawn), and Replay of one iteration (until a turn is shown), the median of 3
 * tries each; it prints the database size, the server's peak memory and the query plans of the
 * queries those views run.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Page } from 'playwright-core';
import { ensureBuilt, hasChromium, launchBrowser, startServe } from '../tests/e2e/harness';
import { generateBigStore } from './big-store';

const TRIES = 3;
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
  if (runCount(dataDir) !== runs) {
    if (existsSync(join(dataDir, 'turnlab.sqlite'))) throw new Error(`${dataDir} holds another store; remove it or set TURNLAB_BENCH_UI_DIR_${runs}`);
    process.stdout.write(`building a store of ${runs} runs in ${dataDir} ...\n`);
    const stats = generateBigStore(dataDir, { runs });
    process.stdout.write(`  ${stats.metricRows} metric rows, ${stats.episodes} episodes, ${stats.turns} turns in ${stats.seconds.toFixed(0)} s\n`);
  }
  return dataDir;
}

const SLOW_QUERIES: Array<[string, string]> = [
  ['runs list (Runs view)', `SELECT runs.id, (SELECT MAX(m.iteration) FROM metrics m WHERE m.run_id = runs.id),
     (SELECT MAX(m.value) FROM metrics m WHERE m.run_id = runs.id AND m.name >= 'val/' AND m.name < 'val0' AND m.name GLOB 'val/*/success') FROM runs ORDER BY runs.id`],
  ['metric names of a run', 'SELECT DISTINCT name FROM metrics WHERE run_id = 1 ORDER BY name'],
  ['one series', "SELECT iteration, value, wall_time FROM metrics WHERE run_id = 1 AND name = 'actor/entropy' ORDER BY iteration"],
  ['episodes of an iteration (Replay)', 'SELECT * FROM episodes WHERE run_id = 1 AND iteration = 50 ORDER BY id'],
  ['turns of an episode', 'SELECT * FROM turns WHERE episode_id = 1 ORDER BY turn_index'],
];

function queryPlans(dataDir: string): string[] {
  const db = new Database(join(dataDir, 'turnlab.sqlite'), { readonly: true });
  try {
    return SLOW_QUERIES.flatMap(([label, sql]) => {
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>;
      const start = performance.now();
      db.prepare(sql).all();
      const ms = performance.now() - start;
      return [`  ${label}: ${ms.toFixed(1)} ms`, ...plan.map((row) => `    ${row.detail}`)];
    });
  } finally {
    db.close();
  }
}

async function measure(page: Page, at: (hash: string) => string, url: string, runs: number): Promise<Record<string, number>> {
  const results: Record<string, number[]> = { 'runs: first rows': [], 'runs: search': [], 'runs: sort': [], 'runs: scroll to last': [], 'compare 20x3': [], 'replay iteration': [] };
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
    const firstBefore = await page.locator('.run-row').first().getAttribute('data-run-id');
    results['runs: sort'].push(await timed(async () => {
      await page.locator('th.sortable[data-sort="id"]').click();
      await page.waitForFunction((id) => (globalThis as unknown as { document: Document_ }).document.querySelector('.run-row')?.getAttribute('data-run-id') !== id, firstBefore);
    }));
    await page.locator('th.sortable[data-sort="id"]').click();
    // The table draws its rows 200 at a time as the end comes into view: scroll until the last run is drawn.
    results['runs: scroll to last'].push(await timed(async () => {
      while ((await page.locator(`.run-row[data-run-id="${runs}"]`).count()) === 0) {
        const before = await rowCount();
        await page.evaluate(() => {
          const root = (globalThis as unknown as { document: Document_ }).document.documentElement;
          root.scrollTo(0, root.scrollHeight);
        });
        await page.waitForFunction((n) => (globalThis as unknown as { document: Document_ }).document.querySelectorAll('.run-row').length > n, before);
      }
    }));

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
  return Object.fromEntries(Object.entries(results).map(([k, v]) => [k, median(v)]));
}

export default async function uiBenchmark(): Promise<void> {
  if (!hasChromium) {
    process.stdout.write('skipped: Debian\'s Chromium is not installed (apt-get install chromium)\n');
    return;
  }
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
      for (const [label, ms] of Object.entries(times)) rows.push(`  ${label.padEnd(22)} ${ms.toFixed(0).padStart(6)} ms`);
      rows.push('  query plans and one run of each on the server\'s file:');
      rows.push(...queryPlans(dataDir));
    } finally {
      await browser.close();
      await serve.stop();
    }
  }
  process.stdout.write(`${rows.join('\n')}\n(median of ${TRIES}; Chromium 1440 x 900, ${new Date().toISOString().slice(0, 10)})\n`);
}
