/**
 * Where and when a bench's figures were taken, printed beside them: figures from a shared 2-core
 * machine and a quiet 16-core one differ several-fold, and the docs compare dated rows.
 */
import { cpus, loadavg } from 'node:os';

/** `2 cores (AMD EPYC 7B13), Node v20.20.2, load average 1.2 0.9 0.8`: the load says how much of the machine others had. */
export function machineLine(): string {
  const cores = cpus();
  return `${cores.length} cores (${cores[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`;
}

/** The date (ISO, UTC) and the machine, one line. */
export function dateAndMachine(): string {
  return `${new Date().toISOString()}; ${machineLine()}`;
}

/** The process's peak resident set so far, in MiB (maxRSS is in KiB). */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}
