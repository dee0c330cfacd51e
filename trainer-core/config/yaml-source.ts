import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, visit, type Document } from 'yaml';
import { ConfigError } from './errors';
import { distinctYamlErrors, locateYamlError } from './yaml-errors';

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
      const located = distinctYamlErrors(this.doc.errors).map((problem) => locateYamlError(text, problem, this.lines));
      const first = located.reduce((best, issue) => ((issue.line ?? Infinity) < (best.line ?? Infinity) ? issue : best));
      throw new ConfigError([{ path: [], ...first }], name);
    }
  }

  /**
   * The plain value. The parser accepts an alias to an anchor defined nowhere before it (`*x`) and
   * leaves it to this step, which would throw a bare ReferenceError: named here with its line.
   */
  toJS(): unknown {
    let dangling: { name: string; offset?: number } | undefined;
    visit(this.doc, {
      Alias: (_, alias) => {
        if (alias.resolve(this.doc) !== undefined) return undefined;
        dangling = { name: alias.source, offset: alias.range?.[0] };
        return visit.BREAK;
      },
    });
    if (dangling) {
      const message = `the alias *${dangling.name} names no anchor set before it; write &${dangling.name} on an earlier value, or write the value itself`;
      throw new ConfigError([{ path: [], message, line: dangling.offset === undefined ? undefined : this.line(dangling.offset) }], this.name);
    }
    try {
      return this.doc.toJS();
    } catch (error) {
      // Aliases that expand past the parser's limit (a YAML bomb) and the like.
      throw new ConfigError([{ path: [], message: `cannot read the file as a config: ${error instanceof Error ? error.message : String(error)}` }], this.name);
    }
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
  /** Whether the file itself writes the key at `path` (not only one of its ancestors). */
  has(path: ReadonlyArray<string | number>): boolean {
    return this.doc.hasIn(path);
  }

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
