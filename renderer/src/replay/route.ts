// The replay's place in the URL (`#/runs/7/replay?iteration=3&episode=41&turn=2`), so a chart
// click, a reload or a shared link opens the same episode and turn.

export interface ReplayQuery {
  iteration: number | null;
  episode: number | null;
  /** A turn index; the episode's turn count is the state after its last turn. */
  turn: number;
  /** A stored evaluation whose episodes are shown instead of the run's own; null for the run's. */
  evaluation: number | null;
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
  };
}

export function replayQuery(state: Partial<ReplayQuery>): Record<string, string> {
  const out: Record<string, string> = {};
  if (state.iteration !== undefined && state.iteration !== null) out.iteration = String(state.iteration);
  if (state.episode !== undefined && state.episode !== null) out.episode = String(state.episode);
  if (state.turn) out.turn = String(state.turn);
  if (state.evaluation !== undefined && state.evaluation !== null) out.evaluation = String(state.evaluation);
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
