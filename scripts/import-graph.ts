// Measures the module graph of lib/ and drivers/: folder-level edges, imports that run back up
// the layers (docs/architecture.md), import cycles and oversized files. `npm run arch`.
import * as fs from 'node:fs';
import * as path from 'node:path';

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

/** Static imports only (`import type` included: a type edge is still a dependency of meaning). */
export function importEdges(): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of [...sourceFiles('lib'), ...sourceFiles('drivers')]) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const re = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/g;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const to = resolveImport(file, m[1]!);
      if (to) edges.push({ from: file, to });
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
  ['openapi', 'export'],
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

export function upwardImports(edges: ImportEdge[]): ImportEdge[] {
  return edges.filter((e) => {
    const a = unitOf(e.from), b = unitOf(e.to);
    if (a === b) return false;
    return layerOf(b) <= layerOf(a);
  });
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
}
