// Measures the module graph of lib/ and drivers/: folder-level edges, imports that run back up
// the layers and the sub-layers of a folder (docs/architecture.md), import cycles, oversized files
// and how many files lie directly in lib/service/. `npm run arch`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const root = path.resolve(__dirname, '..');

export interface ImportEdge { from: string; to: string }

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.join(path.dirname(from), spec);
  for (const candidate of [base + '.ts', path.join(base, 'index.ts'), base]) {
    if (candidate.endsWith('.ts') && fs.existsSync(path.join(root, candidate))) return candidate;
  }
  return undefined;
}

/** The module specifiers of a file: static imports and re-exports (`import type` included), `import('…')` types, dynamic imports and `require`. */
export function moduleSpecifiers(text: string, fileName = 'file.ts'): string[] {
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) out.push(node.moduleReference.expression.text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) out.push(node.argument.literal.text);
    else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) out.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
  return out;
}

/**
 * Every import of lib/ and drivers/: a type edge is still a dependency of meaning, and a lazy
 * `require` (optional peers) or dynamic `import()` still loads the module, so all count.
 */
export function importEdges(): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of [...sourceFiles('lib'), ...sourceFiles('drivers')]) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const spec of new Set(moduleSpecifiers(text, file))) {
      const to = resolveImport(file, spec);
      if (to && to !== file) edges.push({ from: file, to });
    }
  }
  return edges;
}

/** The folder a file belongs to for layering: lib/<folder> or drivers/<name>; lib's own files are 'lib'. */
export function unitOf(file: string): string {
  const parts = file.split(path.sep);
  if (parts[0] === 'drivers') return 'drivers';
  if (parts.length === 2) { const name = parts[1]!.replace(/\.ts$/, ''); return ['declaration', 'config'].includes(name) ? name : 'lib'; }
  return parts[1]!;
}

/**
 * Layers, top (may import everything below) to bottom. Two units on the same layer must not import
 * each other. 'lib' is the composition root (api.ts, index.ts).
 */
export const LAYERS: string[][] = [
  ['lib', 'drivers'],
  ['cli'],
  ['testing'],
  ['openapi', 'export', 'history', 'import'],
  ['relations', 'hierarchy', 'changes'],
  ['cache', 'auth', 'soft-delete'],
  ['http'],
  ['client'],
  ['service'],
  ['declaration'],
  ['driver'],
  ['query'],
  ['resource'],
  ['errors', 'log', 'config'],
];

export function layerOf(unit: string): number {
  const index = LAYERS.findIndex((layer) => layer.includes(unit));
  return index < 0 ? LAYERS.length : index;
}

/**
 * Sub-layers inside a folder, top to bottom, by the same rule: a sub-folder imports only what lies
 * below it. An entry names a sub-folder (`reads`) or a file lying directly in the folder
 * (`database.ts`); '.' stands for the folder's other direct files. lib/service/: nested writes
 * call other resources' services; the face (resource-service.ts) extends the writes, which extend
 * the reads; the reads stand on the database door and the shapes the service answers; below them
 * the read policy, then the declarations and the registry, then the request context every part
 * receives. Two files directly in the folder are never checked against each other, nor is a file
 * against another of its own sub-folder (the cycle check still holds them), so the rule holds before
 * and after files move into sub-folders.
 */
export const SUB_LAYERS: Record<string, string[][]> = {
  service: [
    ['nested'],
    ['.'],
    ['writes'],
    ['reads'],
    ['database.ts', 'resource-service-types.ts'],
    ['policy'],
    ['declarations'],
    ['request-context.ts', 'hooks.ts'],
  ],
};

/** Where a file sits inside its unit: its sub-folder (`reads`), or its own name when it lies directly in the unit (`database.ts`). */
export function subUnitOf(file: string): string | undefined {
  const parts = file.split(path.sep);
  return parts[0] === 'lib' && parts.length >= 3 ? parts[2] : undefined;
}

/** A file's sub-layer in its unit (0 = top), or undefined when its unit has no sub-layers or the entry is not placed. */
export function subLayerOf(file: string): number | undefined {
  const layers = SUB_LAYERS[unitOf(file)];
  const sub = subUnitOf(file);
  if (!layers || sub === undefined) return undefined;
  const direct = file.split(path.sep).length === 3;
  const at = layers.findIndex((layer) => layer.includes(sub));
  if (at >= 0) return at;
  if (!direct) return undefined;
  const rest = layers.findIndex((layer) => layer.includes('.'));
  return rest >= 0 ? rest : undefined;
}

/** Sub-folders of a layered unit that SUB_LAYERS does not place (a new one must be placed before it can be checked). */
export function unplacedSubFolders(): string[] {
  const out: string[] = [];
  for (const [unit, layers] of Object.entries(SUB_LAYERS)) {
    const dir = path.join(root, 'lib', unit);
    if (!fs.existsSync(dir)) continue;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && !layers.some((layer) => layer.includes(entry.name))) out.push(`lib/${unit}/${entry.name}`);
    }
  }
  return out;
}

export function upwardImports(edges: ImportEdge[]): ImportEdge[] {
  return edges.filter((e) => {
    const a = unitOf(e.from), b = unitOf(e.to);
    if (a !== b) return layerOf(b) <= layerOf(a);
    const direct = (file: string) => file.split(path.sep).length === 3;
    if (!SUB_LAYERS[a] || subUnitOf(e.from) === subUnitOf(e.to) || (direct(e.from) && direct(e.to))) return false;
    const la = subLayerOf(e.from), lb = subLayerOf(e.to);
    if (la === undefined || lb === undefined) return false;
    return lb <= la;
  });
}

/** Source files lying directly in a folder (not in its sub-folders): lib/service/ holds at most 12. */
export function directFiles(dir = 'lib/service'): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(dir, entry.name));
}

/** File-level cycles (Tarjan's strongly connected components of size > 1). */
export function importCycles(edges: ImportEdge[]): string[][] {
  const graph = new Map<string, string[]>();
  for (const e of edges) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
  let index = 0;
  const indices = new Map<string, number>(), low = new Map<string, number>();
  const stack: string[] = [], onStack = new Set<string>(), out: string[][] = [];
  const visit = (v: string): void => {
    indices.set(v, index); low.set(v, index); index++;
    stack.push(v); onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!));
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do { w = stack.pop()!; onStack.delete(w); component.push(w); } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return out;
}

export function oversizedFiles(limit = 300): Array<{ file: string; lines: number }> {
  return [...sourceFiles('lib'), ...sourceFiles('drivers')]
    .map((file) => ({ file, lines: fs.readFileSync(path.join(root, file), 'utf8').split('\n').length - 1 }))
    .filter((f) => f.lines > limit);
}

if (require.main === module) {
  const edges = importEdges();
  const up = upwardImports(edges);
  console.log(`files: ${new Set(edges.flatMap((e) => [e.from, e.to])).size}, imports: ${edges.length}`);
  console.log(`upward imports (${up.length}):`);
  for (const e of up) console.log(`  ${e.from} -> ${e.to}`);
  const cycles = importCycles(edges);
  console.log(`cycles (${cycles.length}):`);
  for (const c of cycles) console.log(`  ${c.join(' , ')}`);
  console.log('oversized:', oversizedFiles());
  const direct = directFiles('lib/service');
  console.log(`files directly in lib/service/: ${direct.length} (at most 12)`);
  const unplaced = unplacedSubFolders();
  if (unplaced.length) console.log('sub-folders not in SUB_LAYERS:', unplaced);
}
