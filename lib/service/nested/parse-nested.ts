import { BadRequestError, ValidationError } from '../../errors';
import type { ModelInfo } from '../../resource/model-info';
import { readPivotInput, type PivotEntry } from '../writes/pivot-input';
import { addError, type FieldErrors } from '../writes/validate-input';
import type { NestedRelation } from './nested-config';

/** A related record sent for creation or update, with where it sits in the body (`reviews.1`). */
export interface NestedRecord {
  raw: Record<string, unknown>;
  path: string;
}

/** What one body asks of one opted-in relation (decision 58). */
export interface NestedOps {
  relation: NestedRelation;
  /** The relation's key in the body, with the item's prefix (`reviews`, `product.1.reviews`). */
  path: string;
  create: NestedRecord[];
  update: NestedRecord[];
  /** One-to-many deletes, as sent. */
  delete: Array<{ rawId: unknown; path: string }>;
  /** Many-to-many: links to add (attach), to remove (detach), or the whole set (sync). */
  attach: PivotEntry[];
  detach: Array<{ rawId: unknown; path: string }>;
  sync: PivotEntry[] | null;
}

/** One item of a write split: the parent's own attributes and its nested parts. */
export interface NestedItem {
  attributes: Record<string, unknown>;
  nested: NestedOps[];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isScalarId = (v: unknown): boolean => (typeof v === 'string' && v !== '') || (typeof v === 'number' && Number.isFinite(v));

/** True when `key` names a relation of `info` (and is not a field): a nested write attempt, whatever its value. */
export function namesRelation(info: ModelInfo, key: string): boolean {
  if (Object.prototype.hasOwnProperty.call(info.fields, key) || info.fillable.includes(key)) return false;
  return Object.prototype.hasOwnProperty.call(info.relations, key) || Object.prototype.hasOwnProperty.call(info.hiddenRelations, key);
}

/** True when a body item holds some nested write (or a relation key the caller must be told about). */
export function hasNested(info: ModelInfo, item: unknown): boolean {
  if (!isObject(item)) return false;
  for (const key of Object.keys(item)) if (namesRelation(info, key)) return true;
  return false;
}

/** Decision 75: the nested items one request may hold (REST_MAX_NESTED_RECORDS), counted before any is read. */
export interface NestedBudget {
  max: number;
  used: number;
}

/** A 422 naming `path` (decision 75: shapes, ids and limits are validation errors, checked before anything is written). */
function refuse(path: string, message: string): never {
  throw new ValidationError({ [path]: [message] });
}

/**
 * Splits one body item: relation keys opted in become nested parts, a relation not opted in is a
 * 400 naming it; shapes, ids and the request's count of nested items are 422s naming the path.
 */
export function parseNestedItem(item: unknown, info: ModelInfo, relations: ReadonlyMap<string, NestedRelation>, mode: 'create' | 'update', prefix: string, errors: FieldErrors, budget: NestedBudget): NestedItem {
  if (!isObject(item)) return { attributes: item as Record<string, unknown>, nested: [] };
  const attributes: Record<string, unknown> = {};
  const nested: NestedOps[] = [];
  for (const [key, value] of Object.entries(item)) {
    const relation = relations.get(key);
    if (relation && !Object.prototype.hasOwnProperty.call(info.fields, key)) {
      nested.push(parseOps(relation, value, mode, `${prefix}${key}`, errors, budget));
      continue;
    }
    if (namesRelation(info, key)) {
      const opted = [...relations.keys()];
      throw new BadRequestError(`Relation "${prefix}${key}" of ${info.name} does not accept nested writes (${opted.length > 0 ? `nestedWrites: ${opted.join(', ')}` : 'no relation is opted in'}).`, `${prefix}${key}`);
    }
    attributes[key] = value;
  }
  return { attributes, nested };
}

const MANY_SHAPE = 'an array of ids or of {"id": ..., <pivot columns>}';
const ONE_UPDATE_SHAPE = '{"create": [...], "update": [{"id": ...}], "delete": [ids]}';

function parseOps(relation: NestedRelation, value: unknown, mode: 'create' | 'update', path: string, errors: FieldErrors, budget: NestedBudget): NestedOps {
  const ops: NestedOps = { relation, path, create: [], update: [], delete: [], attach: [], detach: [], sync: null };
  const counted = (raw: unknown, where: string): unknown[] => {
    const items = list(raw, where);
    budget.used += items.length;
    if (budget.used > budget.max) refuse(path, `A request may hold at most ${budget.max} nested records (REST_MAX_NESTED_RECORDS); "${path}" takes it past the limit.`);
    return items;
  };
  if (relation.kind === 'oneToMany') {
    if (mode === 'create') {
      if (!Array.isArray(value)) refuse(path, `"${path}" must be an array of ${relation.name} records to create.`);
      ops.create = records(relation, counted(value, path), path, false, errors);
      return ops;
    }
    const parts = keysOf(value, ['create', 'update', 'delete'], path, ONE_UPDATE_SHAPE);
    const create = parts.create === undefined ? [] : counted(parts.create, `${path}.create`);
    const update = parts.update === undefined ? [] : counted(parts.update, `${path}.update`);
    const del = parts.delete === undefined ? [] : counted(parts.delete, `${path}.delete`);
    ops.create = records(relation, create, `${path}.create`, false, errors);
    ops.update = records(relation, update, `${path}.update`, true, errors);
    ops.delete = ids(del, `${path}.delete`, errors);
    return ops;
  }
  const pivot = relation.pivot!;
  const links = (raw: unknown, where: string) => {
    const items = counted(raw, where);
    items.forEach((item, i) => isObject(item) && oneLevel(relation, item, `${where}.${i}`));
    return readPivotInput(items, pivot, relation.writablePivot, where);
  };
  if (Array.isArray(value)) {
    if (mode === 'create') ops.attach = links(value, path);
    else ops.sync = links(value, path);
    return ops;
  }
  if (mode === 'create') refuse(path, `"${path}" must be ${MANY_SHAPE} to attach.`);
  const parts = keysOf(value, ['attach', 'detach', 'sync'], path, '{"attach": [...], "detach": [ids], "sync": [...]} or an array (sync)');
  if (parts.sync !== undefined && (parts.attach !== undefined || parts.detach !== undefined)) refuse(path, `"${path}": sync replaces the whole set; send it without attach or detach.`);
  if (parts.sync !== undefined) ops.sync = links(parts.sync, `${path}.sync`);
  if (parts.attach !== undefined) ops.attach = links(parts.attach, `${path}.attach`);
  if (parts.detach !== undefined) ops.detach = ids(counted(parts.detach, `${path}.detach`), `${path}.detach`, errors);
  return ops;
}

function keysOf(value: unknown, allowed: string[], path: string, shape: string): Record<string, unknown> {
  if (!isObject(value)) refuse(path, `"${path}" must be ${shape}.`);
  const unknown = Object.keys(value).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) refuse(`${path}.${unknown[0]}`, `"${path}.${unknown[0]}" is not a nested operation (${allowed.join(', ')}).`);
  return value;
}

function list(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) refuse(path, `"${path}" must be an array.`);
  return value;
}

/** Ids to delete or detach: each a scalar id (an object or an array is a 422 naming its path, never echoed as an id). */
function ids(values: unknown[], path: string, errors: FieldErrors): Array<{ rawId: unknown; path: string }> {
  return values.map((rawId, i) => {
    if (!isScalarId(rawId)) addError(errors, `${path}.${i}`, 'The id must be a string or a number.');
    return { rawId, path: `${path}.${i}` };
  });
}

/** Decision 58: one level deep: a relation of the related record in a nested record or link item is a 400 naming it. */
function oneLevel(relation: NestedRelation, raw: Record<string, unknown>, at: string): void {
  const info = relation.related.entry.info;
  for (const key of Object.keys(raw)) if (namesRelation(info, key)) throw new BadRequestError(`Nested writes go one level deep: "${at}.${key}" cannot be written with the ${relation.name}.`, `${at}.${key}`);
}

/**
 * Related records to create or update: objects, never carrying the foreign key to the parent
 * (the server sets it: 422) nor a relation of their own (one level deep: 400); an update's id is a scalar id.
 */
function records(relation: NestedRelation, values: unknown[], path: string, withId: boolean, errors: FieldErrors): NestedRecord[] {
  return values.map((raw, i) => {
    const at = `${path}.${i}`;
    if (!isObject(raw)) {
      addError(errors, at, 'Each record must be a JSON object.');
      return { raw: {}, path: at };
    }
    oneLevel(relation, raw, at);
    if (Object.prototype.hasOwnProperty.call(raw, relation.foreignKey)) addError(errors, `${at}.${relation.foreignKey}`, `The ${relation.foreignKey} field is set by the server.`);
    if (withId && (raw.id === undefined || raw.id === null || raw.id === '')) addError(errors, `${at}.id`, 'The id field is required.');
    else if (withId && !isScalarId(raw.id)) addError(errors, `${at}.id`, 'The id must be a string or a number.');
    return { raw, path: at };
  });
}
