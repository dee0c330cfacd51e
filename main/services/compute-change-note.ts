/**
 * A run is the same for one seed, backend and worker count. A resume or fork may get another of
 * either without asking for it (`auto` resolves per machine: another machine's cores, a native
 * backend installed since): from its checkpoint on it then follows another path than the
 * iterations before it would have, which nothing but the run's backend field (overwritten) and
 * `perf/workers` shows. Said once, with the settings that continue it as it was.
 */

export interface ComputeUsed {
  backend: string | null;
  workers: number | null;
}

export function computeChangeNote(before: ComputeUsed, now: { backend: string; workers: number }, iteration: number): string | null {
  const changes: string[] = [];
  const keep: string[] = [];
  if (before.backend !== null && before.backend !== now.backend) {
    changes.push(`the ${now.backend} backend (they trained on ${before.backend})`);
    keep.push(`trainer.backend=${before.backend}`);
  }
  if (before.workers !== null && before.workers !== now.workers) {
    changes.push(`${now.workers} worker${now.workers === 1 ? '' : 's'} (they had ${before.workers})`);
    keep.push(`trainer.workers=${before.workers}`);
  }
  if (changes.length === 0) return null;
  return (
    `note: the iterations up to the checkpoint (${iteration}) and this process differ: it trains on ${changes.join(' and ')}, ` +
    `and the same seed gives the same run only on one backend and worker count, so from iteration ${iteration + 1} this is not the run an uninterrupted one would have been; ` +
    `${keep.join(' ')} continues it as it was`
  );
}
