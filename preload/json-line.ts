// One JSONL record as every reader reads it back: the store's exports (main/services/export.ts)
// and the Runs view's "Export the table" write their lines here.

/**
 * JSON has no Infinity, and JSON.stringify writes it as null, which a reader takes for a NaN or
 * a value never logged (a diverged run's `actor/grad_norm`). `1e999` is a JSON number that
 * Python's json, pandas and JavaScript all read as infinity, as CSV's `Infinity` is read.
 */
function jsonValue(value: unknown): string {
  if (value === Infinity) return '1e999';
  if (value === -Infinity) return '-1e999';
  return JSON.stringify(value);
}

/**
 * Characters JSON leaves bare in a string but Python's `str.splitlines()` (and so
 * `read_text().splitlines()`, a common way to read JSONL) ends a line at: NEL, the line and
 * paragraph separators. Written escaped, a record stays one line for every reader.
 */
const LINE_BREAK_JSON_KEEPS = /[\u0085\u2028\u2029]/;
const LINE_BREAKS_JSON_KEEPS = /[\u0085\u2028\u2029]/g;

/** The record as one line of JSON, without its line end. */
export function jsonLine(record: Readonly<Record<string, unknown>>): string {
  const values = Object.values(record);
  const line = values.includes(Infinity) || values.includes(-Infinity)
    ? `{${Object.entries(record)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => `${JSON.stringify(key)}:${jsonValue(value)}`)
      .join(',')}}`
    : JSON.stringify(record);
  // Tested first: replace() costs more than the test on the many lines that hold none.
  if (!LINE_BREAK_JSON_KEEPS.test(line)) return line;
  return line.replace(LINE_BREAKS_JSON_KEEPS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
