// The axis extent ECharts settled on after drawing, read from the chart's own model, so the
// page can say what it shows (a rate's axis ends at 1, not at a nice number past it).
import type { ECharts } from 'echarts/core';

interface AxisModel {
  axis?: { scale?: { getExtent(): [number, number] } };
}

/** The extent of the chart's first x or y axis as drawn. */
export function drawnExtent(chart: ECharts, axis: 'xAxis' | 'yAxis'): [number, number] | null {
  const model = (chart as unknown as { getModel?: () => { getComponent(type: string, index: number): AxisModel | undefined } }).getModel?.();
  const extent = model?.getComponent(axis, 0)?.axis?.scale?.getExtent();
  return extent && Number.isFinite(extent[0]) && Number.isFinite(extent[1]) ? [extent[0], extent[1]] : null;
}
