// Writes tests/setup/test-durations.json, the seconds per test file by which the sequencer
// (tests/setup/sequencer.ts) starts the longest files first, from a Vitest JSON report:
//   npx vitest run --reporter=json --outputFile=/tmp/report.json
//   npx tsx scripts/test-durations.ts /tmp/report.json "2026-11-28, 2-core machine"
// Only the order matters, so a report from a loaded machine serves as well as a quiet one's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface JsonReport {
  testResults: Array<{ name: string; startTime: number; endTime: number }>;
}

const root = resolve(import.meta.dirname, '..');
export const DURATIONS_FILE = join(root, 'tests/setup/test-durations.json');

/** Seconds per file (paths relative to the repository, longest first) from a Vitest JSON report. */
export function durationsOf(report: JsonReport): Record<string, number> {
  const entries = report.testResults.map((r) => [relative(root, r.name).split('\\').join('/'), Math.round((r.endTime - r.startTime) / 100) / 10] as const);
  return Object.fromEntries(entries.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [reportPath, measured] = process.argv.slice(2);
  if (!reportPath || !measured) {
    process.stderr.write('usage: npx tsx scripts/test-durations.ts REPORT.json "DATE, MACHINE"\n');
    process.exit(2);
  }
  const seconds = durationsOf(JSON.parse(readFileSync(reportPath, 'utf8')) as JsonReport);
  writeFileSync(DURATIONS_FILE, `${JSON.stringify({ measured, seconds }, null, 2)}\n`);
  process.stdout.write(`${Object.keys(seconds).length} files written to ${relative(root, DURATIONS_FILE)}\n`);
}
