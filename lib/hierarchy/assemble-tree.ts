import type { Row } from '../driver';

export interface TreeShape {
  key: string;
  parentField: string;
  childrenKey: string;
  /** Deepest level kept (roots are 0); null: unlimited. */
  maxDepth: number | null;
  includeEmptyChildren: boolean;
}

/**
 * Nested trees from flat rows in one pass, keeping the rows' order among siblings (the query's
 * orderby). A row whose parent is not among the rows is a root (its parent key unchanged). Rows on
 * a cycle that no root reaches become roots where the cycle is first met, so each row appears
 * exactly once and assembly always ends.
 */
export function assembleTrees(rows: Row[], shape: TreeShape): Row[] {
  const byId = new Map<string, Row>();
  for (const row of rows) byId.set(String(row[shape.key]), row);
  const children = new Map<string, Row[]>();
  const roots: Row[] = [];
  for (const row of rows) {
    const parent = row[shape.parentField];
    const parentKey = parent === null || parent === undefined ? null : String(parent);
    if (parentKey === null || !byId.has(parentKey) || parentKey === String(row[shape.key])) roots.push(row);
    else {
      const list = children.get(parentKey);
      if (list) list.push(row);
      else children.set(parentKey, [row]);
    }
  }
  const placed = new Set<string>();
  // below max_depth: dropped, and marked so they never come back as roots
  const drop = (id: string): void => {
    for (const child of children.get(id) ?? []) {
      const childId = String(child[shape.key]);
      if (placed.has(childId)) continue;
      placed.add(childId);
      drop(childId);
    }
  };
  const build = (row: Row, depth: number): Row | null => {
    const id = String(row[shape.key]);
    if (placed.has(id)) return null;
    placed.add(id);
    // the rows are this request's own (fresh from the driver): nested in place, not copied
    const node: Row = row;
    const kids: Row[] = [];
    if (shape.maxDepth === null || depth < shape.maxDepth) {
      for (const child of children.get(id) ?? []) {
        const built = build(child, depth + 1);
        if (built) kids.push(built);
      }
    } else drop(id);
    if (kids.length > 0 || shape.includeEmptyChildren) node[shape.childrenKey] = kids;
    return node;
  };
  const trees: Row[] = [];
  for (const root of roots) {
    const built = build(root, 0);
    if (built) trees.push(built);
  }
  // what no root reached sits on a cycle: the first row of it met in order becomes a root
  for (const row of rows) {
    if (placed.has(String(row[shape.key]))) continue;
    const built = build(row, 0);
    if (built) trees.push(built);
  }
  return trees;
}

/** The nodes on the way from a tree's root down to `id` (empty when absent). */
export function pathTo(trees: Row[], id: string, shape: TreeShape): Row[] {
  for (const tree of trees) {
    if (String(tree[shape.key]) === id) return [tree];
    const below = pathTo((tree[shape.childrenKey] as Row[] | undefined) ?? [], id, shape);
    if (below.length > 0) return [tree, ...below];
  }
  return [];
}
