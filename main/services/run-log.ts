import type { Store } from '../store/db';

/**
 * The trainer's log lines, handed to the caller's hook (the terminal, the app's channel) and
 * kept with the run, so the workbench shows them for runs it did not watch start. Lines logged
 * before the run's row exists (the backend is chosen first, so a broken one leaves no run) wait
 * for it. A line the store cannot take (a full disk) is still printed, and the run goes on: the
 * store's own failure is reported where the run writes its iterations.
 */
export function runLogger(store: Store, print?: (line: string) => void): { log: (line: string) => void; attach: (runId: number) => void } {
  let runId: number | null = null;
  const waiting: string[] = [];
  const keep = (lines: string[]) => {
    try {
      store.logs.append(runId!, lines);
    } catch {
      // Printed already; see above.
    }
  };
  return {
    log(line) {
      print?.(line);
      if (runId === null) waiting.push(line);
      else keep([line]);
    },
    attach(id) {
      runId = id;
      if (waiting.length > 0) keep(waiting.splice(0));
    },
  };
}
