import { BadRequestError } from '../errors';
import type { RestConfig } from '../config';
import type { Catalog, ModelInfo, RelationInfo } from '../resource/model-info';
import type { RelationLoad } from './ast';
import { decodeParam, isAbsent } from './json-param';
import { checkColumns } from './parse-select';
import { relationError, resolveRelationPath, type RelationStep } from './relation-path';
import { own } from './safe-keys';

const PARAM = 'relations';

/** A relation being loaded, with what it needs for key columns; becomes a RelationLoad. */
export interface LoadNode {
  name: string;
  relation: RelationInfo;
  target: ModelInfo;
  /** 'unset': only reached as a path prefix; 'all': requested without columns. */
  columns: string[] | 'all' | 'unset';
  children: Map<string, LoadNode>;
}

interface Item {
  steps: RelationStep[];
  path: string;
  columns: string[] | null;
}

function readItems(raw: unknown): string[] {
  const value = decodeParam(PARAM, raw);
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  throw new BadRequestError(`Parameter "relations" must be an array of strings or a comma-separated string.`, PARAM);
}

function tryResolve(model: ModelInfo, path: string, catalog: Catalog): RelationStep[] | null {
  try {
    return resolveRelationPath(model, path, catalog, PARAM);
  } catch {
    return null;
  }
}

/**
 * Splits one item string into relation items (decision 11): `a.b:c1,c2` starts an item with its
 * first column; a token that is a declared relation path (or `all`) starts a new item; any other
 * token is a column of the item before it. A token that is neither a path nor a field of the
 * previous item's model (when that item had no column list) is named as an unknown relation.
 */
function tokenize(text: string, model: ModelInfo, catalog: Catalog): Item[] {
  const items: Item[] = [];
  for (const rawToken of text.split(',')) {
    const token = rawToken.trim();
    if (token === '') continue;
    const colon = token.indexOf(':');
    if (colon >= 0) {
      const path = token.slice(0, colon).trim();
      const first = token.slice(colon + 1).trim();
      if (path === 'all') throw new BadRequestError(`"all" takes no column list in relations.`, PARAM);
      items.push({ steps: resolveRelationPath(model, path, catalog, PARAM), path, columns: first === '' ? [] : [first] });
      continue;
    }
    if (token === 'all') {
      for (const name of Object.keys(model.relations)) {
        items.push({ steps: resolveRelationPath(model, name, catalog, PARAM), path: name, columns: null });
      }
      continue;
    }
    const steps = tryResolve(model, token, catalog);
    if (steps) {
      items.push({ steps, path: token, columns: null });
      continue;
    }
    const previous = items[items.length - 1];
    const target = previous?.steps[previous.steps.length - 1].target;
    const isColumn = previous && !token.includes('.') && (previous.columns !== null || own(target.fields, token) !== undefined);
    if (!isColumn) {
      // Report the failing segment against its own model.
      resolveRelationPath(model, token, catalog, PARAM);
      throw relationError(model, token, PARAM);
    }
    previous.columns = [...(previous.columns ?? []), token];
  }
  return items;
}

/**
 * A path deeper than REST_MAX_RELATION_DEPTH is refused before anything is loaded: each level can
 * multiply the answer (`products.category.products...` on 20 products is 20^levels objects).
 */
function checkDepth(item: Item, config: RestConfig): void {
  if (item.steps.length <= config.maxRelationDepth) return;
  throw new BadRequestError(
    `Relation path "${item.path}" is ${item.steps.length} levels deep; at most ${config.maxRelationDepth} levels can be loaded (REST_MAX_RELATION_DEPTH).`,
    PARAM,
  );
}

function addItem(roots: Map<string, LoadNode>, item: Item, config: RestConfig): void {
  checkDepth(item, config);
  let level = roots;
  let node: LoadNode | undefined;
  for (const step of item.steps) {
    node = level.get(step.relation.name);
    if (!node) {
      node = { name: step.relation.name, relation: step.relation, target: step.target, columns: 'unset', children: new Map() };
      level.set(node.name, node);
    }
    level = node.children;
  }
  const last = node as LoadNode;
  if (item.columns === null || item.columns.length === 0) {
    last.columns = 'all';
    return;
  }
  const where = `relations (${item.path})`;
  const checked = checkColumns(last.target, item.columns, where, PARAM, config);
  if (last.columns === 'all') return;
  const existing = last.columns === 'unset' ? [] : last.columns;
  last.columns = [...existing, ...checked.filter((c) => !existing.includes(c))];
}

/** `relations` -> a merged tree of loads (`reviews` + `reviews.user` -> reviews with child user). */
export function parseRelationTree(raw: unknown, model: ModelInfo, catalog: Catalog, config: RestConfig): Map<string, LoadNode> {
  const roots = new Map<string, LoadNode>();
  if (isAbsent(decodeParam(PARAM, raw))) return roots;
  for (const text of readItems(raw)) {
    for (const item of tokenize(text, model, catalog)) addItem(roots, item, config);
  }
  return roots;
}

/** The loads without their helper data; columns get their key columns in key-columns.ts. */
export function toRelationLoads(nodes: Map<string, LoadNode>, columnsOf: (node: LoadNode) => string[] | null): RelationLoad[] {
  return [...nodes.values()].map((node) => ({
    name: node.name,
    columns: columnsOf(node),
    children: toRelationLoads(node.children, columnsOf),
    filter: null,
  }));
}
