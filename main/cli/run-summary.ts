// What a researcher reads first when a run ends (W&B prints a run summary): each environment's
// validation success at the end, its best and when, and the optimal policy's where known.
import type { Store } from '../store/db';

const SUCCESS = /^val\/(.+)\/success$/;

export function validationSummary(store: Store, runId: number): string[] {
  const latest = store.metrics.latest(runId);
  const optimal = new Map(latest.filter((m) => m.name.endsWith('/optimal_success')).map((m) => [m.name.replace(/optimal_success$/, 'success'), m.value]));
  return latest
    .filter((m) => SUCCESS.test(m.name) && m.value !== null)
    .map((m) => {
      const points = store.metrics.series(runId, m.name).filter((p) => p.value !== null);
      const best = points.reduce((a, b) => ((b.value as number) > (a.value as number) ? b : a), points[0]);
      const bound = optimal.get(m.name);
      const ceiling = bound === undefined || bound === null ? '' : `; the optimal policy ${bound.toFixed(3)}`;
      return `${m.name}: ${(m.value as number).toFixed(3)} at iteration ${m.iteration} (best ${(best.value as number).toFixed(3)} at iteration ${best.iteration}${ceiling})`;
    });
}
