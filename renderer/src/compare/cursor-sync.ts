// One cursor over several charts: hovering one chart shows the tooltip at the same x in every
// other chart of its group (Compare's panels, the Run view's charts). ECharts' own `connect`
// relays the axis pointer but not the other charts' tooltips, so the relay is done here.
import type { ECharts } from 'echarts/core';

const groups = new Map<string, Set<ECharts>>();
let relaying = false;

interface PointerEvent {
  axesInfo?: Array<{ axisDim?: string; value?: number }>;
}

function showAt(chart: ECharts, x: number): void {
  const pixel = chart.convertToPixel({ xAxisIndex: 0 }, x) as unknown as number;
  if (!Number.isFinite(pixel)) return;
  chart.dispatchAction({ type: 'showTip', x: pixel, y: chart.getHeight() / 2 });
}

/** Adds `chart` to `group`; returns what takes it out again (call before disposing it). */
export function syncCursor(group: string, chart: ECharts): () => void {
  const members = groups.get(group) ?? new Set<ECharts>();
  groups.set(group, members);
  members.add(chart);
  const others = () => [...members].filter((other) => other !== chart);
  chart.on('updateAxisPointer', (event: unknown) => {
    if (relaying) return;
    const x = (event as PointerEvent).axesInfo?.find((info) => info.axisDim === 'x')?.value;
    if (typeof x !== 'number') return;
    relaying = true;
    try {
      for (const other of others()) showAt(other, x);
    } finally {
      relaying = false;
    }
  });
  chart.getZr().on('globalout', () => {
    for (const other of others()) other.dispatchAction({ type: 'hideTip' });
  });
  return () => {
    members.delete(chart);
    if (members.size === 0) groups.delete(group);
  };
}
