/**
 * Text as SQLite stores it. A JavaScript string may hold a lone UTF-16 surrogate (a reply cut
 * between the two halves of an emoji, a pasted name); better-sqlite3 would write it as bytes
 * that are not UTF-8, which Python, exports and other readers reject. Every repository passes
 * the text it writes through here, so each lone surrogate becomes U+FFFD once, at the store's
 * boundary.
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with every lone surrogate replaced by U+FFFD (pairs are left alone). */
export function wellFormedText(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/** A value bound to a statement: strings made well-formed, anything else as it is. */
export function storedValue<T>(value: T): T {
  return (typeof value === 'string' ? wellFormedText(value) : value) as T;
}

/**
 * JSON text of `value` with its strings and keys made well-formed. (JSON.stringify alone would
 * write a lone surrogate as the escape `\udXXX`: valid UTF-8, but reading it back brings the
 * lone surrogate back.)
 */
export function storedJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'string') return wellFormedText(item);
    if (item && typeof item === 'object' && !Array.isArray(item)) {
      const keys = Object.keys(item);
      if (keys.some((key) => wellFormedText(key) !== key)) {
        return Object.fromEntries(keys.map((key) => [wellFormedText(key), (item as Record<string, unknown>)[key]]));
      }
    }
    return item;
  });
}
