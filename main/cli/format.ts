import { createRequire } from 'node:module';
import type TableType from 'cli-table3';

// Required on first use so that commands printing no table do not pay for loading it.
const requireModule = createRequire(import.meta.url);

/** Local time as `YYYY-MM-DD HH:MM`; '-' for a missing time. */
export function formatTime(epochMs: number | null | undefined): string {
  if (epochMs === null || epochMs === undefined) return '-';
  const d = new Date(epochMs);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A metric value for people: six significant digits; a stored NULL is a NaN. */
export function formatValue(value: number | null | undefined): string {
  if (value === null || value === undefined) return 'NaN';
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(6)));
}

/** A plain table: no colours, so piped output stays clean. */
export function renderTable(head: string[], rows: Array<Array<string | number>>): string {
  const Table = requireModule('cli-table3') as typeof TableType;
  const table = new Table({
    head,
    style: { head: [], border: [] },
    // No rule between body rows: long metric lists stay readable.
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const row of rows) table.push(row.map(String));
  return table.toString();
}

/** Tags as the CLI lists them, a tag that holds a comma or a quote quoted so it reads back as one. */
export function formatTags(tags: readonly string[]): string {
  return tags.map((tag) => (/[,"]/.test(tag) ? JSON.stringify(tag) : tag)).join(', ');
}

/**
 * Control characters as Unicode's pictures of them (ESC as ␛): `play` shows the text the model
 * reads, and a terminal would act on an env's escape codes (colour, clearing the screen) instead.
 * Line breaks and tabs stay as they are.
 */
export function visibleControls(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => String.fromCharCode(c === '\x7f' ? 0x2421 : 0x2400 + c.charCodeAt(0)));
}

/** "1 run", "6 runs". */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
