import { BadRequestError } from '../errors';
import type { RestConfig } from '../config';
import type { Catalog, ModelInfo } from '../resource/model-info';
import type { Filter } from './ast';
import { isAbsent, decodeParam } from './json-param';
import { parseCondition } from './parse-condition';
import { resolveRelationPath } from './relation-path';
import { clientEntries, isPlainObject } from './safe-keys';

const PARAM = 'oper';

/** Relation sub-filters found in conjunctive positions, by relation path from the root (for `_nested`). */
export type RelationFilters = Map<string, Filter | null>;

export interface ParsedFilter {
  filter: Filter | null;
  relationFilters: RelationFilters;
}

interface State {
  /** The parameter named in messages: `oper`, or `having` (an aggregate's filter over its answer). */
  param: string;
  catalog: Catalog;
  config: RestConfig;
  conditions: number;
  relationFilters: RelationFilters;
}

interface Level {
  model: ModelInfo;
  depth: number;
  /** Relation path of this level from the root ('' at the root). */
  path: string;
  /** Whether this level is reached through AND only (its relation filters narrow loaded data). */
  conjunctive: boolean;
}

export function combine(kind: 'and' | 'or', filters: Filter[]): Filter | null {
  const flat: Filter[] = [];
  for (const f of filters) {
    if (f.kind === kind) flat.push(...f.filters);
    else flat.push(f);
  }
  if (flat.length === 0) return null;
  if (flat.length === 1) return flat[0];
  return { kind, filters: flat };
}

function checkDepth(depth: number, state: State): void {
  if (depth > state.config.maxDepth) throw new BadRequestError(`Maximum nesting depth (${state.config.maxDepth}) exceeded.`, state.param);
}

function where(level: Level, state: State): string {
  return level.path === '' ? state.param : `${state.param} (relation "${level.path}")`;
}

function condition(text: string, level: Level, state: State): Filter {
  state.conditions += 1;
  if (state.conditions > state.config.maxConditions) {
    throw new BadRequestError(`Maximum conditions (${state.config.maxConditions}) exceeded.`, state.param);
  }
  return parseCondition(text, { model: level.model, config: state.config, parameter: state.param, where: where(level, state) });
}

/** An element of an and/or list: a condition string or a nested group object (one level deeper). */
function element(value: unknown, level: Level, state: State, conjunctive: boolean): Filter | null {
  if (typeof value === 'string') return condition(value, level, state);
  if (isPlainObject(value)) return node(value, { ...level, depth: level.depth + 1, conjunctive }, state);
  throw new BadRequestError(`Invalid element ${JSON.stringify(value) ?? String(value)} in ${where(level, state)}; use a condition string or an {and|or: [...]} object.`, state.param);
}

function group(kind: 'and' | 'or', value: unknown, level: Level, state: State): Filter | null {
  const conjunctive = level.conjunctive && kind === 'and';
  // An object as the value of a group: its members are joined by the group's own kind, so
  // {"or": {"and": [A, B], "or": [C, D]}} is (A AND B) OR (C OR D).
  if (isPlainObject(value)) {
    const inner: Level = { ...level, depth: level.depth + 1, conjunctive };
    checkDepth(inner.depth, state);
    return combine(kind, members(value, inner, state));
  }
  const items = Array.isArray(value) ? value : [value];
  const filters: Filter[] = [];
  for (const item of items) {
    const f = element(item, level, state, conjunctive);
    if (f) filters.push(f);
  }
  return combine(kind, filters);
}

function record(state: State, path: string, filter: Filter | null): void {
  if (!state.relationFilters.has(path)) {
    state.relationFilters.set(path, filter);
    return;
  }
  const previous = state.relationFilters.get(path) ?? null;
  state.relationFilters.set(path, previous && filter ? combine('and', [previous, filter]) : (previous ?? filter));
}

/**
 * A relation key (`category`, `category.parent`): its value is its own and/or tree, or
 * null/empty for plain existence; a dot path of n relations adds n levels (decision 9).
 */
function relationKey(key: string, value: unknown, level: Level, state: State): Filter {
  const steps = resolveRelationPath(level.model, key, state.catalog, state.param);
  const depth = level.depth + steps.length;
  checkDepth(depth, state);
  const names = steps.map((s) => s.relation.name);
  const path = [level.path, ...names].filter((p) => p !== '').join('.');
  const inner: Level = { model: steps[steps.length - 1].target, depth, path, conjunctive: level.conjunctive };
  let filter: Filter | null;
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) filter = null;
  else if (isPlainObject(value)) filter = nodeBody(value, inner, state);
  else if (Array.isArray(value)) filter = group('and', value, inner, state);
  else if (typeof value === 'string') filter = condition(value, inner, state);
  else throw new BadRequestError(`Invalid value for relation "${key}" in ${where(level, state)}; use an {and|or: [...]} object.`, state.param);

  // Wrap from the innermost segment out: category.parent -> related(category, related(parent, f)).
  let wrapped: Filter | null = filter;
  for (let i = steps.length - 1; i >= 0; i -= 1) {
    if (inner.conjunctive) record(state, [level.path, ...names.slice(0, i + 1)].filter((p) => p !== '').join('.'), wrapped);
    wrapped = { kind: 'related', relation: names[i], filter: wrapped };
  }
  return wrapped as Filter;
}

/** The filters of an object's keys at `level` (already depth-checked). */
function members(value: Record<string, unknown>, level: Level, state: State): Filter[] {
  const filters: Filter[] = [];
  for (const [key, v] of clientEntries(value, state.param)) {
    const lower = key.toLowerCase();
    const f = lower === 'and' || lower === 'or' ? group(lower, v, level, state) : relationKey(key, v, level, state);
    if (f) filters.push(f);
  }
  return filters;
}

/** The keys of one object at `level`; siblings are combined with AND. */
function nodeBody(value: Record<string, unknown>, level: Level, state: State): Filter | null {
  return combine('and', members(value, level, state));
}

function node(value: Record<string, unknown>, level: Level, state: State): Filter | null {
  checkDepth(level.depth, state);
  return nodeBody(value, level, state);
}

/**
 * `oper` -> Filter (decisions 4-10). An object is depth 1; a string is one condition or JSON;
 * an array is read as an `and` list. Also returns the relation sub-filters for `_nested`.
 */
export function parseFilter(raw: unknown, model: ModelInfo, catalog: Catalog, config: RestConfig, param: string = PARAM): ParsedFilter {
  const state: State = { param, catalog, config, conditions: 0, relationFilters: new Map() };
  const root: Level = { model, depth: 1, path: '', conjunctive: true };
  const value = decodeParam(param, raw);
  if (isAbsent(value)) return { filter: null, relationFilters: state.relationFilters };
  let filter: Filter | null;
  if (isPlainObject(value)) filter = node(value, root, state);
  else if (Array.isArray(value)) filter = group('and', value, root, state);
  else if (typeof value === 'string') filter = condition(value, root, state);
  else throw new BadRequestError(`Parameter "${param}" must be an object or a condition string.`, param);
  return { filter, relationFilters: state.relationFilters };
}
