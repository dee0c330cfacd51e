// The replay's place in the URL (`#/runs/7/replay?iteration=3&episode=41&turn=2`), so a chart
// click, a reload or a shared link opens the same episode and turn, with the same filters of the
// episode list and the group view open or not.
import { SPLITS, type SplitDto } from '../../../preload/contract';

export type ReplayOutcome = 'success' | 'failure';

/** The episode list's filters; empty is no filter. */
export interface ReplayFilters {
  split: '' | SplitDto;
  outcome: '' | ReplayOutcome;
  /** A group id, as its field holds it. */
  group: string;
  tag: string;
}

export interface ReplayQuery {
  iteration: number | null;
  episode: number | null;
  /** A turn index; the episode's turn count is the state after its last turn. */
  turn: number;
  /** A stored evaluation whose episodes are shown instead of the run's own; null for the run's. */
  evaluation: number | null;
  filters: ReplayFilters;
  /** The selected episode's group shown below it. */
  showGroup: boolean;
}

export const NO_FILTERS: ReplayFilters = { split: '', outcome: '', group: '', tag: '' };

function text(raw: unknown): string {
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' ? value : '';
}

/** Anything else in the address (an old link, a typo) is no filter rather than an empty list. */
function readFilters(query: Record<string, unknown>): ReplayFilters {
  const split = text(query.split);
  const outcome = text(query.outcome);
  const group = text(query.group);
  return {
    split: (SPLITS as readonly string[]).includes(split) ? (split as SplitDto) : '',
    outcome: outcome === 'success' || outcome === 'failure' ? outcome : '',
    group: /^\d+$/.test(group) ? group : '',
    tag: text(query.tag),
  };
}

function nonNegativeInt(raw: unknown): number | null {
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return null;
  return Number(value);
}

export function readReplayQuery(query: Record<string, unknown>): ReplayQuery {
  return {
    iteration: nonNegativeInt(query.iteration),
    episode: nonNegativeInt(query.episode),
    turn: nonNegativeInt(query.turn) ?? 0,
    evaluation: nonNegativeInt(query.evaluation),
    filters: readFilters(query),
    showGroup: text(query.view) === 'group',
  };
}

export function replayQuery(state: Partial<ReplayQuery>): Record<string, string> {
  const out: Record<string, string> = {};
  if (state.iteration !== undefined && state.iteration !== null) out.iteration = String(state.iteration);
  if (state.episode !== undefined && state.episode !== null) out.episode = String(state.episode);
  if (state.turn) out.turn = String(state.turn);
  if (state.evaluation !== undefined && state.evaluation !== null) out.evaluation = String(state.evaluation);
  for (const key of ['split', 'outcome', 'group', 'tag'] as const) {
    if (state.filters?.[key]) out[key] = state.filters[key];
  }
  if (state.showGroup) out.view = 'group';
  return out;
}

/** The link under a stored evaluation in the Checkpoints view: Replay showing its episodes. */
export function evaluationReplayLocation(runId: number, evaluationId: number): { path: string; query: Record<string, string> } {
  return { path: `/runs/${runId}/replay`, query: replayQuery({ evaluation: evaluationId }) };
}

/** The link a chart point opens: that run's replay at that iteration. */
export function replayLocation(runId: number, iteration: number): { path: string; query: Record<string, string> } {
  return { path: `/runs/${runId}/replay`, query: replayQuery({ iteration }) };
}
