import { Lexer, type LineCounter, type YAMLError } from 'yaml';

/**
 * Line and one-line message of a YAML syntax error. The parser notices an unclosed quote or
 * bracket only where the text runs out (often the end of the file), so those are reported at
 * the line where the quote or bracket opens, which is where the fix goes.
 */
export function locateYamlError(text: string, problem: YAMLError, lines: LineCounter): { line?: number; message: string } {
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
  // The parser's wording names its grammar, not the slip; the common slips and their fixes.
  if (problem.code === 'BLOCK_AS_IMPLICIT_KEY' && pos) {
    // Reported at the end of the line before: the line that is indented too deep is the next.
    return { line: pos.line + 1, message: `not valid YAML: ${what}: this line is indented deeper than the key above it, whose value is already given; indent it as that key's siblings` };
  }
  const advice = YAML_ADVICE[problem.code];
  return { line: pos?.line, message: `not valid YAML: ${what}${pos ? ` (column ${pos.col})` : ''}${advice ? `; ${advice}` : ''}` };
}

/** The parser's errors less those that restate another: a line indented too deep is also read as a key running over two lines. */
export function distinctYamlErrors(errors: readonly YAMLError[]): YAMLError[] {
  const deep = new Set(errors.filter((e) => e.code === 'BLOCK_AS_IMPLICIT_KEY').map((e) => e.pos[0]));
  return errors.filter((e) => !(e.code === 'MULTILINE_IMPLICIT_KEY' && deep.has(e.pos[0])));
}

const YAML_ADVICE: Partial<Record<YAMLError['code'], string>> = {
  MULTILINE_IMPLICIT_KEY: "is a ':' missing after the key? Each setting is written key: value",
  BAD_INDENT: 'indent it as the other keys of its section, at the same column',
  TAB_AS_INDENT: 'YAML indents with spaces; replace the tab with spaces',
};

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
