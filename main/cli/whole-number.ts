import { UserError } from './errors';

/**
 * A count or seed option's whole number: digits only (`1e3`, `2.0` and `0x10` are refused rather
 * than read), at least `least`, at most `most`, and exact in a double: past 2^53 a seed would
 * silently be another.
 */
export function wholeNumber(flag: string, text: string, least: number, most: number = Number.MAX_SAFE_INTEGER): number {
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || value < least || value > most || !Number.isSafeInteger(value)) {
    const shown = text.trim() === '' ? 'nothing' : text;
    throw new UserError(`${flag} must be an integer of at least ${least}${value > most ? ` and at most ${most}` : ''}, got ${shown}`);
  }
  return value;
}
