/**
 * Per-episode outcomes on the same held-out start states, read two ways for RL past a warm start:
 * - `groupReach`: the episodes a policy fails at the evaluation's decoding, and how many of G
 *   samples at the training decoding solve them. A failure that no sample of a group solves gives
 *   a group-relative estimator nothing to learn from.
 * - `outcomeFlips`: how the solved set changes from one checkpoint to the next. A policy that
 *   keeps what it gains accumulates; one whose gains are lost again by the next checkpoint is
 *   being undone by later updates, and its success then moves without a trend.
 */

export interface GroupReach {
  episodes: number;
  /** Episodes the policy fails at the evaluation's decoding. */
  failed: number;
  /** Of those, solved by at least one of the samples. */
  failedReached: number;
  /** Of the failed ones, how many are solved by k of the samples, k = 0..G. */
  failedBySolvedSamples: number[];
  /** Share of all episodes solved by at least one sample (pass@G). */
  passAtG: number;
  /** Mean success of the samples. */
  sampleSuccess: number;
}

/** `evaluation[i]`: episode i solved at the evaluation's decoding; `samples[s][i]`: by sample s. */
export function groupReach(evaluation: readonly boolean[], samples: readonly (readonly boolean[])[]): GroupReach {
  if (samples.length === 0) throw new RangeError('groupReach needs at least one sample');
  for (const s of samples) {
    if (s.length !== evaluation.length) throw new RangeError(`a sample played ${s.length} episodes, the evaluation ${evaluation.length}`);
  }
  const solvedBy = evaluation.map((_, i) => samples.reduce((n, s) => n + Number(s[i]), 0));
  const failedBySolvedSamples = Array.from({ length: samples.length + 1 }, () => 0);
  let failed = 0;
  evaluation.forEach((ok, i) => {
    if (ok) return;
    failed++;
    failedBySolvedSamples[solvedBy[i]]++;
  });
  const n = evaluation.length;
  return {
    episodes: n,
    failed,
    failedReached: failed - failedBySolvedSamples[0],
    failedBySolvedSamples,
    passAtG: solvedBy.filter((k) => k > 0).length / n,
    sampleSuccess: solvedBy.reduce((a, k) => a + k, 0) / (n * samples.length),
  };
}

export interface FlipStep {
  /** Index of the checkpoint this step ends at (1 = the first after the warm start). */
  to: number;
  success: number;
  /** Episodes failed at the previous checkpoint and solved at this one. */
  gained: number;
  /** Episodes solved at the previous checkpoint and failed at this one. */
  lost: number;
  /** Of `gained`, still solved at the last checkpoint. */
  gainedKept: number;
}

export interface OutcomeFlips {
  steps: FlipStep[];
  /** Episodes solved at the last checkpoint and not at the first, and the reverse. */
  netGained: number;
  netLost: number;
  /** Sum of gained + lost over the steps: the churn the net change is made of. */
  churn: number;
}

/** `byCheckpoint[c][i]`: episode i solved by checkpoint c, c = 0 the warm start, in order. */
export function outcomeFlips(byCheckpoint: readonly (readonly boolean[])[]): OutcomeFlips {
  if (byCheckpoint.length < 2) throw new RangeError('outcomeFlips needs at least two checkpoints');
  const n = byCheckpoint[0].length;
  for (const c of byCheckpoint) {
    if (c.length !== n) throw new RangeError(`checkpoints played different numbers of episodes (${c.length} and ${n})`);
  }
  const last = byCheckpoint[byCheckpoint.length - 1];
  const steps: FlipStep[] = [];
  for (let c = 1; c < byCheckpoint.length; c++) {
    const before = byCheckpoint[c - 1];
    const now = byCheckpoint[c];
    let gained = 0;
    let lost = 0;
    let gainedKept = 0;
    for (let i = 0; i < n; i++) {
      if (!before[i] && now[i]) {
        gained++;
        if (last[i]) gainedKept++;
      } else if (before[i] && !now[i]) lost++;
    }
    steps.push({ to: c, success: now.filter(Boolean).length / n, gained, lost, gainedKept });
  }
  const first = byCheckpoint[0];
  let netGained = 0;
  let netLost = 0;
  for (let i = 0; i < n; i++) {
    if (!first[i] && last[i]) netGained++;
    else if (first[i] && !last[i]) netLost++;
  }
  return { steps, netGained, netLost, churn: steps.reduce((a, s) => a + s.gained + s.lost, 0) };
}
