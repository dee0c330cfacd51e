/**
 * A bench's scratch folder that Ctrl-C (SIGINT) or a SIGTERM does not leave behind: a `finally`
 * does not run when a signal ends the process, so the folder is also removed from the signal's
 * handler, which then exits as the signal would have (130 or 143).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
type Signal = keyof typeof EXIT_CODES;

/** The folders not removed yet: one handler per signal serves them all, so the first folder's handler cannot exit before the others are removed. */
const live = new Set<string>();

function onSignal(signal: Signal): void {
  for (const dir of live) {
    rmSync(dir, { recursive: true, force: true });
    process.stderr.write(`interrupted: removed ${dir}\n`);
  }
  live.clear();
  process.exit(EXIT_CODES[signal]);
}

const handlers = { SIGINT: () => onSignal('SIGINT'), SIGTERM: () => onSignal('SIGTERM') };

/** A new folder under the system's temporary folder, named `prefix` and random characters; remove() removes it (again is harmless). */
export function tempFolder(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (live.size === 0) for (const signal of Object.keys(handlers) as Signal[]) process.on(signal, handlers[signal]);
  live.add(dir);
  return {
    dir,
    remove() {
      rmSync(dir, { recursive: true, force: true });
      if (!live.delete(dir) || live.size > 0) return;
      // With no folder left, a signal ends the process the ordinary way again.
      for (const signal of Object.keys(handlers) as Signal[]) process.off(signal, handlers[signal]);
    },
  };
}
