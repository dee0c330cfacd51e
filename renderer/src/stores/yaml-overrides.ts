// Switching the New run form to the YAML editor carries the form's edits into the text: each
// `key=value` override is written at its dotted path, the file's comments and order kept.
import { isMap as isMapNode, parse, parseDocument } from 'yaml';

/** A map merges key by key into the section there, as the trainer reads `trainer={seed: 3}` (Hydra's merge). */
function setLeaves(doc: ReturnType<typeof parseDocument>, path: string[], value: unknown): void {
  const isMap = typeof value === 'object' && value !== null && !Array.isArray(value);
  const there = doc.getIn(path, true);
  if (!isMap || Object.keys(value).length === 0 || !isMapNode(there)) {
    doc.setIn(path, value);
    return;
  }
  for (const [key, inner] of Object.entries(value)) setLeaves(doc, [...path, key], inner);
}

export function applyOverrides(text: string, overrides: readonly string[]): string {
  if (overrides.length === 0) return text;
  const doc = parseDocument(text);
  // A file that does not parse stays as it is; starting it reports the error with its line.
  if (doc.errors.length > 0) return text;
  for (const override of overrides) {
    const eq = override.indexOf('=');
    const raw = override.slice(eq + 1);
    let value: unknown;
    try {
      value = parse(raw);
    } catch {
      value = raw;
    }
    setLeaves(doc, override.slice(0, eq).split('.'), value);
  }
  try {
    return doc.toString();
  } catch {
    // An alias to no anchor parses but cannot be written back: kept as typed, as above.
    return text;
  }
}
