import { Lexer, LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type YAMLError } from 'yaml';
import { ConfigError } from './errors';

/** A parsed YAML config that still knows where each key and value sits in the file. */
export class YamlSource {
  private readonly lines = new LineCounter();
  private readonly doc: Document;

  constructor(
    text: string,
    readonly name: string,
  ) {
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: true, uniqueKeys: true });
    if (this.doc.errors.length > 0) {
      // The earliest place among the errors: one unclosed quote often yields several.
      const located = this.doc.errors.map((problem) => locateYamlError(text, problem, this.lines));
      const first = located.reduce((best, issue) => ((issue.line ?? Infinity) < (best.line ?? Infinity) ? issue : best));
      throw new ConfigError([{ path: [], ...first }], name);
    }
  }

  toJS(): unknown {
    return this.doc.toJS();
  }

  /** True when the file holds no value: nothing, blank lines, comments, a bare `---` or `~`. */
  holdsNothing(): boolean {
    return this.doc.contents === null || (isScalar(this.doc.contents) && this.doc.contents.value === null);
  }

  /**
   * 1-based line of the value at `path` (of its key when `key` is set). A path that goes past
   * what the file holds gives the line of the deepest part it does hold, or undefined when the
   * file holds none of it (the value came from the defaults).
   */
  lineOf(path: ReadonlyArray<string | number>, key = false): number | undefined {
    let node: unknown = this.doc.contents;
    let offset: number | undefined;
    for (let i = 0; i < path.length; i++) {
      const part = path[i];
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(part));
        if (!pair) return offset === undefined ? undefined : this.line(offset);
        const keyNode = pair.key as { range?: [number, number, number] | null };
        const valueNode = pair.value as { range?: [number, number, number] | null } | null;
        offset = (last && key ? keyNode.range?.[0] : (valueNode?.range?.[0] ?? keyNode.range?.[0])) ?? offset;
        node = pair.value;
      } else if (isSeq(node)) {
        const item = node.items[Number(part)] as { range?: [number, number, number] | null } | undefined;
        if (!item) return offset === undefined ? undefined : this.line(offset);
        offset = item.range?.[0] ?? offset;
        node = item;
      } else {
        break;
      }
    }
    return offset === undefined ? undefined : this.line(offset);
  }

  private line(offset: number): number {
    return this.lines.linePos(offset).line;
  }
}

/**
 * Line and one-line message of a YAML syntax error. The parser notices an unclosed quote or
 * bracket only where the text runs out (often the end of the file), so those are reported at
 * the line where the quote or bracket opens, which is where the fix goes.
 */
function locateYamlError(text: string, problem: YAMLError, lines: LineCounter): { line?: number; message: string } {
  const what = problem.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
  const at = problem.pos[0];
  const quote = /^Missing closing (["'])/.exec(what)?.[1];
  const bracket = /end with a ([\]}])/.exec(what)?.[1];
  const opening = quote ? openingQuote(text, at) : bracket ? openingBracket(text, at, bracket === ']' ? '[' : '{') : undefined;
  if (opening !== undefined) {
    const { line, col } = lines.linePos(opening);
    const close = quote ?? bracket;
    const opened = quote ? `the ${quote} quote` : `the ${bracket === ']' ? '[' : '{'}`;
    return { line, message: `not valid YAML: ${opened} at column ${col} is never closed; add the closing ${close}` };
  }
  const pos = problem.linePos?.[0];
  return { line: pos?.line, message: `not valid YAML: ${what}${pos ? ` (column ${pos.col})` : ''}` };
}

// The lexer's markers for a document start, a flow error end and a plain scalar: not in the text.
const ZERO_WIDTH = new Set(['\x02', '\x18', '\x1f']);

/** Start offset and text of each token the YAML lexer reads. */
function* tokens(text: string): Generator<{ start: number; token: string }> {
  let start = 0;
  for (const token of new Lexer().lex(text)) {
    if (ZERO_WIDTH.has(token)) continue;
    yield { start, token };
    start += token.length;
  }
}

/** Offset of the quote that opens the quoted scalar running through `at`. */
function openingQuote(text: string, at: number): number | undefined {
  for (const { start, token } of tokens(text)) {
    if (start > at) return undefined;
    if ((token[0] === '"' || token[0] === "'") && at <= start + token.length) return start;
  }
  return undefined;
}

/** Offset of the innermost `open` bracket still unclosed at `at`. */
function openingBracket(text: string, at: number, open: '[' | '{'): number | undefined {
  const stack: Array<{ start: number; token: string }> = [];
  for (const item of tokens(text)) {
    if (item.start >= at) break;
    if (item.token === '[' || item.token === '{') stack.push(item);
    else if (item.token === ']' || item.token === '}') stack.pop();
  }
  return stack.reverse().find((item) => item.token === open)?.start;
}
