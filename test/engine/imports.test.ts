/**
 * architecture.md rule 3: no import cycle between actors. The modules of engine/ form a DAG
 * (domain <- book, pricing <- risk types <- actors' data <- actors <- flows <- venue), type
 * imports included: every `import ... from`, `import type ... from`, `export ... from`,
 * dynamic `import()` and `import('...').T` type of every engine/**\/*.ts file is an edge, and
 * a strongly connected component of more than one module (or a module importing itself) is
 * a cycle. And engine/index.ts is the front door for the outside only: no engine module
 * imports it.
 */
import t from 'tap';
import ts from 'typescript';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const engine = join(root, 'engine');
const frontDoor = join(engine, 'index.ts');

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

/**
 * Every module specifier of a source, parsed (comments and strings are not mistaken for
 * imports): static imports and re-exports, type-only or not, dynamic `import()` and import
 * types.
 */
export function specifiers(fileName: string, source: string): string[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) out.push(node.moduleReference.expression.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined && ts.isStringLiteralLike(node.arguments[0])) out.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) out.push(node.argument.literal.text);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The module graph: each file and the files it imports (relative specifiers only; packages are leaves outside it). */
export function moduleGraph(files: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, source] of files) {
    const to: string[] = [];
    for (const spec of specifiers(file, source)) if (spec.startsWith('.')) to.push(resolve(dirname(file), spec));
    graph.set(file, to);
  }
  return graph;
}

/** The cycles of a graph: its strongly connected components of more than one node, and nodes that import themselves (Tarjan). */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue; // outside the graph (a file not in it): cannot close a cycle
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return found.sort((x, y) => (x[0]! < y[0]! ? -1 : 1)); // each sorted, then by first module: stable output
}

const files = new Map(tsFiles(engine).map((f) => [f, readFileSync(f, 'utf8')] as const));
const graph = moduleGraph(files);
const name = (f: string): string => relative(root, f);

t.test('the parser sees every kind of import and nothing else', async (t) => {
  const src = [
    "import { a } from './a.ts';",
    "import type { B } from './b.ts';",
    "import {\n  c,\n  type C,\n} from './c.ts';",
    "import './d.ts';",
    "export { e } from './e.ts';",
    "export type { F } from './f.ts';",
    "export * from './g.ts';",
    "export type * from './h.ts';",
    "const i = await import('./i.ts');",
    "type J = import('./j.ts').J;",
    "// import { k } from './k.ts';",
    "const l = \"import { l } from './l.ts'\";",
    "import { encodeAbiParameters } from 'viem';",
  ].join('\n');
  t.same(specifiers('x.ts', src), ['./a.ts', './b.ts', './c.ts', './d.ts', './e.ts', './f.ts', './g.ts', './h.ts', './i.ts', './j.ts', 'viem']);
});

t.test('the cycle finder finds cycles (so this test can fail)', async (t) => {
  const synthetic = new Map<string, string>([
    ['/m/actors/a.ts', "import type { B } from './b.ts';\nimport { d } from '../domain/d.ts';"],
    ['/m/actors/b.ts', "export { c } from './c.ts';"],
    ['/m/actors/c.ts', "const a = await import('./a.ts');"],
    ['/m/domain/d.ts', "import { d } from './d.ts';"],
    ['/m/domain/e.ts', "import { d } from './d.ts';\nimport { x } from 'viem';"],
    ['/m/flows/f.ts', "import { a } from '../actors/a.ts';\nimport { e } from '../domain/e.ts';"],
  ]);
  t.same(cycles(moduleGraph(synthetic)), [['/m/actors/a.ts', '/m/actors/b.ts', '/m/actors/c.ts'], ['/m/domain/d.ts']]);
  synthetic.set('/m/actors/c.ts', "import { d } from '../domain/d.ts';");
  synthetic.set('/m/domain/d.ts', '');
  t.same(cycles(moduleGraph(synthetic)), [], 'a DAG has none');
});

t.test('the modules of engine/ import each other without cycles', async (t) => {
  t.ok(files.size > 50, `${files.size} engine modules read`);
  t.ok([...graph.values()].some((to) => to.length > 0), 'the graph has edges');
  // Each cycle with the imports inside it, so that the failure says which to move.
  const found = cycles(graph).map((c) => {
    const inside = c.flatMap((from) => [...new Set(graph.get(from))].filter((to) => c.includes(to)).map((to) => `${name(from)} -> ${name(to)}`));
    return `${c.map(name).join(' <-> ')}: ${inside.join('; ')}`;
  });
  t.same(found, [], 'no cycle (strongly connected component or self-import) in the engine import graph');
});

t.test('no engine module imports engine/index.ts (the front door is for the outside)', async (t) => {
  const found: string[] = [];
  for (const [file, to] of graph) if (file !== frontDoor && to.includes(frontDoor)) found.push(name(file));
  t.same(found, [], 'engine/index.ts is imported by no engine module');
});
