// End to end: a fork in Compare draws its parent's curve up to the fork point, faint and in the
// fork's colour, as the Run view does (issue 40, point 5), at 1024 and 1440 px; the legend still
// names the fork once, and a run that is not a fork draws no such curve.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../main/store/db';
import type { MetricPoint } from '../../main/store/types';
import { hasChromium, openWorkbench, type OpenWorkbench } from './harness';

const FORK_AT = 6;
let parentId = 0;
let forkId = 0;
let wb: OpenWorkbench;
let page: Page;

function metricsOf(runId: number, from: number, to: number): MetricPoint[] {
  return Array.from({ length: to - from + 1 }, (_, k) => from + k).flatMap((it) => [
    { runId, name: 'actor/entropy', iteration: it, value: 2 - it / 10, wallTime: 1_750_000_000_000 + it * 1000 },
    { runId, name: 'train/bandit/success', iteration: it, value: it / 12, wallTime: 1_750_000_000_000 + it * 1000 },
  ]);
}

function addRuns(dataDir: string): void {
  const store = openStore(dataDir);
  try {
    const config = { trainer: { experiment_name: 'lineage', seed: 0, total_training_steps: 12 } };
    const parent = store.runs.create({ name: 'lineage-parent', config, seed: 0, envTags: ['bandit'], algorithm: 'grpo', status: 'completed' });
    store.metrics.insert(metricsOf(parent.id, 1, 12));
    const fork = store.runs.create({ name: 'lineage-fork', config, seed: 0, envTags: ['bandit'], algorithm: 'grpo', status: 'completed', parentRunId: parent.id, parentIteration: FORK_AT });
    store.metrics.insert(metricsOf(fork.id, FORK_AT + 1, 12));
    parentId = parent.id;
    forkId = fork.id;
  } finally {
    store.close();
  }
}

const chart = (metric: string) => page.locator(`.panel-chart[data-metric="${metric}"] .compare-chart`);
const legend = (metric: string) => page.locator(`.panel-chart[data-metric="${metric}"] .legend-item`);

describe.skipIf(!hasChromium)('fork lineage in Compare', () => {
  beforeAll(async () => {
    wb = await openWorkbench({ fixture: { iterations: 1 }, addRuns, browser: { viewport: { width: 1440, height: 900 } } });
    page = wb.page;
  });

  afterAll(async () => {
    await wb?.close();
  });

  it.each([1024, 1440])('draws the parent up to the fork under the fork at %i px', async (width) => {
    await page.setViewportSize({ width, height: 900 });
    const metrics = ['actor/entropy', 'train/bandit/success'];
    await page.goto(wb.serve.at(`/compare?runs=${forkId}&${metrics.map((m) => `metric=${encodeURIComponent(m)}`).join('&')}&smooth=0.6`));
    for (const metric of metrics) {
      // The parent's iterations 1..FORK_AT, and not one after.
      await expect.poll(() => chart(metric).getAttribute('data-lineage')).toBe(`${forkId}<${parentId}@${FORK_AT}:${FORK_AT}`);
      await expect.poll(() => legend(metric).count()).toBe(1);
    }
    // The parent compared on its own draws its own curve only.
    await page.goto(wb.serve.at(`/compare?runs=${parentId}&metric=actor%2Fentropy`));
    await expect.poll(() => chart('actor/entropy').getAttribute('data-y-max')).not.toBeNull();
    expect(await chart('actor/entropy').getAttribute('data-lineage')).toBeNull();
  });
});
