// The source's import graph, read with TypeScript's own parser (not regular expressions), so
// that the layer test sees exactly the imports the compiler sees: static imports, re-exports,
// `import('...')` expressions and `import x = require(...)`, each marked type-only or not.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  /** Repository-relative path of the importing file. */
  from: string;
  /** Repository-relative path of the imported file. */
  to: string;
  /** `import type`, `export type`, or every named binding marked `type`: erased at run time. */
  typeOnly: boolean;
  /** `import('...')`: loaded when the code runs there, not when the importing module loads. */
  dynamic: boolean;
}

const SOURCE_EXTENSIONS = ['.ts', '.vue', '.mts'];

/** Every source file under `folders` (repository-relative), skipping declaration files. */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (SOURCE_EXTENSIONS.some((e) => name.endsWith(e)) && !name.endsWith('.d.ts')) found.push(relative(root, path));
    }
  };
  for (const folder of folders) if (existsSync(join(root, folder))) walk(join(root, folder));
  return found.sort();
}

/** The script blocks of a single-file component, joined; other files as they are. */
function scriptText(path: string, text: string): string {
  if (!path.endsWith('.vue')) return text;
  return [...text.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
}

/** The file a relative specifier names, as the bundler and tsx resolve it; undefined for packages. */
function resolveSpecifier(root: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(root, dirname(from), specifier);
  const stem = base.replace(/\.(js|mjs|ts)$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.mts`, `${stem}.vue`, join(base, 'index.ts')];
  const hit = candidates.find((c) => existsSync(c) && statSync(c).isFile());
  return hit === undefined ? undefined : relative(root, hit);
}

function importsOf(path: string, text: string): Array<{ specifier: string; typeOnly: boolean; dynamic?: boolean }> {
  const source = ts.createSourceFile(path, scriptText(path, text), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Array<{ specifier: string; typeOnly: boolean; dynamic?: boolean }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly || (clause.name === undefined && named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly)));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
      const typeOnly = node.isTypeOnly || (named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push({ specifier: arg.text, typeOnly: false, dynamic: true });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expr = node.moduleReference.expression;
      if (ts.isStringLiteral(expr)) found.push({ specifier: expr.text, typeOnly: node.isTypeOnly });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every specifier a file imports (packages included), for checks on what a module may load. */
export function specifiersOf(root: string, file: string): Array<{ specifier: string; typeOnly: boolean; dynamic: boolean }> {
  return importsOf(file, readFileSync(join(root, file), 'utf8')).map((i) => ({ ...i, dynamic: i.dynamic ?? false }));
}

/** The edges between the given files' imports and the repository's own files. */
export function importGraph(root: string, files: readonly string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const from of files) {
    for (const { specifier, typeOnly, dynamic = false } of importsOf(from, readFileSync(join(root, from), 'utf8'))) {
      const to = resolveSpecifier(root, from, specifier);
      if (to !== undefined) edges.push({ from, to, typeOnly, dynamic });
    }
  }
  return edges;
}

/**
 * The import cycles, one per strongly connected component of more than one file (or a file
 * importing itself), each as the files of its component in order; Tarjan's algorithm.
 */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let counter = 0;
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) connect(v);
  return cycles;
}
