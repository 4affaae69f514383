/**
 * `$addFields`/`$set` and `$project` with MongoDB's semantics (mingo's differ):
 * - a dotted path descends into arrays: each document element gets (or keeps) the field; a scalar or
 *   missing parent becomes a document of the computed fields ($addFields, computed `$project` fields);
 * - a nested specification object without operators is a sub-specification (`{a: {b: 1}}` is `a.b`),
 *   so `$addFields` merges into an existing embedded document;
 * - `$project` outputs the included fields in the input document's order, then the computed fields in
 *   specification order; inclusion drops non-document array elements under a sub-path;
 * - specification errors carry the server's codes.
 */
import { CommandError } from './errors';
import { isPlainObject, type Doc } from './values';

/* eslint-disable-next-line @typescript-eslint/no-require-imports */
const { evalExpr } = require('mingo/core') as { evalExpr: (obj: unknown, expr: unknown, options: unknown) => unknown };

interface Lazy {
  map(fn: (o: Doc) => Doc): Lazy;
}

/** A specification error with the server's `Location<code>` code. */
export function stageError(code: number, message: string): CommandError {
  const err = new CommandError('BadValue', message);
  Object.assign(err, { code, codeName: `Location${code}` });
  return err;
}

/** A parsed field specification: computed, included, excluded, or a sub-specification. */
interface FieldNode {
  expr?: unknown;
  include?: boolean;
  children?: Map<string, FieldNode>;
}
type Fields = Map<string, FieldNode>;

const isExpressionObject = (v: Doc): boolean => Object.keys(v)[0]?.startsWith('$') ?? false;

function parse(spec: Doc, stage: '$addFields' | '$project', prefix = '', into: Fields = new Map()): Fields {
  for (const [key, value] of Object.entries(spec)) {
    const parts = key.split('.');
    let level = into;
    for (const part of parts.slice(0, -1)) {
      let node = level.get(part);
      if (!node?.children) {
        if (node) throw stageError(31250, `Invalid ${stage} :: caused by :: Path collision at ${prefix}${key}`);
        level.set(part, (node = { children: new Map() }));
      }
      level = node.children as Fields;
    }
    const last = parts[parts.length - 1];
    const path = `${prefix}${key}`;
    if (isPlainObject(value) && !isExpressionObject(value)) {
      if (Object.keys(value).length === 0) {
        if (stage === '$project') throw stageError(51270, `Invalid $project :: caused by :: An empty sub-projection is not a valid value. Found empty object at path`);
        level.set(last, { expr: { $literal: {} } });
        continue;
      }
      const existing = level.get(last);
      if (existing && !existing.children) throw stageError(31250, `Invalid ${stage} :: caused by :: Path collision at ${path}`);
      const node: FieldNode = existing ?? { children: new Map() };
      parse(value, stage, `${path}.`, node.children);
      level.set(last, node);
    } else {
      if (level.has(last)) throw stageError(31250, `Invalid ${stage} :: caused by :: Path collision at ${path}`);
      if (stage === '$project' && (typeof value === 'boolean' || typeof value === 'number')) level.set(last, { include: Boolean(value) });
      else level.set(last, { expr: value });
    }
  }
  return into;
}

function applyComputed(root: Doc, target: Doc, fields: Fields, options: unknown): Doc {
  const out: Doc = { ...target };
  for (const [name, node] of fields) {
    if (node.children) {
      if (hasComputed(node.children)) out[name] = computedInto(root, out[name], node.children, options);
    } else if (node.include === undefined) {
      // As mingo's own stages: the expressions' root is the document unless an enclosing stage set one.
      const value = evalExpr(root, node.expr, options);
      if (value === undefined) delete out[name];
      else out[name] = value;
    }
  }
  return out;
}

function computedInto(root: Doc, value: unknown, fields: Fields, options: unknown): unknown {
  if (isPlainObject(value)) return applyComputed(root, value, fields, options);
  if (Array.isArray(value)) return value.map((el) => computedInto(root, el, fields, options));
  // A scalar or missing parent becomes a document of the computed fields.
  return applyComputed(root, {}, fields, options);
}

function hasComputed(fields: Fields): boolean {
  for (const node of fields.values()) if (node.children ? hasComputed(node.children) : node.include === undefined) return true;
  return false;
}

export function addFieldsStage(coll: Lazy, spec: unknown, options: unknown): Lazy {
  if (!isPlainObject(spec)) throw stageError(40272, '$addFields specification stage must be an object, got ' + typeof spec);
  const fields = parse(spec, '$addFields');
  if (fields.size === 0) return coll;
  return coll.map((obj) => applyComputed(obj, obj, fields, options));
}

/** Which projection a specification is; throws MongoDB's error for a mixed one. */
function modeOf(fields: Fields): 'inclusion' | 'exclusion' {
  let include = false, exclude = false, computed = false;
  let firstExcluded = '', firstIncluded = '';
  const walk = (level: Fields, prefix: string, top: boolean): void => {
    for (const [name, node] of level) {
      const path = prefix + name;
      if (node.children) walk(node.children, `${path}.`, false);
      else if (node.include === undefined) computed = true;
      else if (top && name === '_id') continue;
      else if (node.include) {
        include = true;
        firstIncluded ||= path;
      } else {
        exclude = true;
        firstExcluded ||= path;
      }
    }
  };
  walk(fields, '', true);
  if (exclude && computed) throw stageError(31252, 'Invalid $project :: caused by :: Cannot use expression other than $meta in exclusion projection');
  if (exclude && include) throw stageError(31254, `Invalid $project :: caused by :: Cannot do exclusion on field ${firstExcluded} in inclusion projection`);
  if (exclude) return 'exclusion';
  if (include || computed) return 'inclusion';
  // Only _id given: {_id: 0} excludes it, {_id: 1} includes only it.
  return fields.get('_id')?.include === false ? 'exclusion' : 'inclusion';
}

function excluded(value: Doc, fields: Fields): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(value)) {
    const node = fields.get(k);
    if (!node) out[k] = v;
    else if (node.children) out[k] = excludeInto(v, node.children);
    else if (node.include !== false) out[k] = v;
  }
  return out;
}

function excludeInto(value: unknown, fields: Fields): unknown {
  if (isPlainObject(value)) return excluded(value, fields);
  if (Array.isArray(value)) return value.map((el) => excludeInto(el, fields));
  return value;
}

function included(value: Doc, fields: Fields): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(value)) {
    const node = fields.get(k);
    if (!node) continue;
    if (node.children) {
      const sub = includeInto(v, node.children);
      if (sub !== undefined) out[k] = sub;
    } else if (node.include) out[k] = v;
  }
  return out;
}

function includeInto(value: unknown, fields: Fields): unknown {
  if (isPlainObject(value)) return included(value, fields);
  if (Array.isArray(value)) return value.map((el) => includeInto(el, fields)).filter((el) => el !== undefined);
  return undefined;
}

export function projectStage(coll: Lazy, spec: unknown, options: unknown): Lazy {
  if (!isPlainObject(spec)) throw stageError(15969, '$project specification must be an object');
  if (Object.keys(spec).length === 0) throw stageError(51272, 'Invalid $project :: caused by :: projection specification must have at least one field');
  const fields = parse(spec, '$project');
  const mode = modeOf(fields);
  if (mode === 'exclusion') return coll.map((obj) => excluded(obj, fields));
  // _id is included unless excluded explicitly.
  if (!fields.has('_id')) fields.set('_id', { include: true });
  const computed = hasComputed(fields);
  return coll.map((obj) => {
    const out = included(obj, fields);
    return computed ? applyComputed(obj, out, fields, options) : out;
  });
}
