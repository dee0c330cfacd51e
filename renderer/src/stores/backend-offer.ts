// Which backends the run forms offer: `auto` and those the probe (listBackends) saw start; the
// others are listed with the reason they cannot.
import type { BackendAvailabilityDto } from '../../../preload/contract';

export function offeredBackends(backends: readonly BackendAvailabilityDto[]): string[] {
  return ['auto', ...backends.filter((b) => b.available).map((b) => b.name)];
}

/** Why the chosen backend cannot start here; null when it can (or nothing is known of it). */
export function backendProblem(chosen: string, backends: readonly BackendAvailabilityDto[] | undefined): string | null {
  const backend = backends?.find((b) => b.name === chosen.trim());
  return backend && !backend.available ? `${backend.name} cannot start here: ${backend.reason ?? 'unavailable'}` : null;
}
