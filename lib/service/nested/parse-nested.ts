import { BadRequestError } from '../../errors';
import type { ModelInfo } from '../../resource/model-info';
import { readPivotInput, type PivotEntry } from '../pivot-input';
import { addError, type FieldErrors } from '../validate-input';
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

/** True when `key` names a relation of `info` (and is not a writable field): a nested write attempt. */
function namesRelation(info: ModelInfo, key: string, value: unknown): boolean {
  if (info.fillable.includes(key) || value === null || typeof value !== 'object') return false;
  return Object.prototype.hasOwnProperty.call(info.relations, key) || Object.prototype.hasOwnProperty.call(info.hiddenRelations, key);
}

/** True when a body item holds some nested write (or a relation key the caller must be told about). */
export function hasNested(info: ModelInfo, item: unknown): boolean {
  if (!isObject(item)) return false;
  for (const key of Object.keys(item)) if (namesRelation(info, key, item[key])) return true;
  return false;
}

/**
 * Splits one body item: relation keys opted in become nested parts, a relation not opted in is a
 * 400 naming it; shapes are checked here (400 for a wrong container, 422 keyed by path for items).
 */
export function parseNestedItem(item: unknown, info: ModelInfo, relations: ReadonlyMap<string, NestedRelation>, mode: 'create' | 'update', prefix: string, errors: FieldErrors): NestedItem {
  if (!isObject(item)) return { attributes: item as Record<string, unknown>, nested: [] };
  const attributes: Record<string, unknown> = {};
  const nested: NestedOps[] = [];
  for (const [key, value] of Object.entries(item)) {
    const relation = relations.get(key);
    if (relation && !info.fillable.includes(key)) {
      nested.push(parseOps(relation, value, mode, `${prefix}${key}`, errors));
      continue;
    }
    if (namesRelation(info, key, value)) {
      const opted = [...relations.keys()];
      throw new BadRequestError(`Relation "${prefix}${key}" of ${info.name} does not accept nested writes (${opted.length > 0 ? `nestedWrites: ${opted.join(', ')}` : 'no relation is opted in'}).`, `${prefix}${key}`);
    }
    attributes[key] = value;
  }
  return { attributes, nested };
}

function parseOps(relation: NestedRelation, value: unknown, mode: 'create' | 'update', path: string, errors: FieldErrors): NestedOps {
  const ops: NestedOps = { relation, path, create: [], update: [], delete: [], attach: [], detach: [], sync: null };
  if (relation.kind === 'oneToMany') {
    if (mode === 'create' || Array.isArray(value)) {
      if (mode === 'update') throw new BadRequestError(`"${path}" takes {"create": [...], "update": [{"id": ...}], "delete": [ids]} on an update.`, path);
      ops.create = records(relation, value, path, false, errors);
      return ops;
    }
    const parts = keysOf(value, ['create', 'update', 'delete'], path, '{"create": [...], "update": [{"id": ...}], "delete": [ids]}');
    if (parts.create !== undefined) ops.create = records(relation, parts.create, `${path}.create`, false, errors);
    if (parts.update !== undefined) ops.update = records(relation, parts.update, `${path}.update`, true, errors);
    if (parts.delete !== undefined) ops.delete = list(parts.delete, `${path}.delete`).map((rawId, i) => ({ rawId, path: `${path}.delete.${i}` }));
    return ops;
  }
  const pivot = relation.pivot!;
  const links = (raw: unknown, where: string) => {
    if (!Array.isArray(raw)) throw new BadRequestError(`"${where}" must be an array of ids or of {"id": ..., <pivot columns>}.`, where);
    return readPivotInput(raw, pivot, relation.writablePivot, where);
  };
  if (Array.isArray(value)) {
    if (mode === 'create') ops.attach = links(value, path);
    else ops.sync = links(value, path);
    return ops;
  }
  if (mode === 'create') throw new BadRequestError(`"${path}" must be an array of ids or of {"id": ..., <pivot columns>} to attach.`, path);
  const parts = keysOf(value, ['attach', 'detach', 'sync'], path, '{"attach": [...], "detach": [ids], "sync": [...]} or an array (sync)');
  if (parts.sync !== undefined && (parts.attach !== undefined || parts.detach !== undefined)) throw new BadRequestError(`"${path}": sync replaces the whole set; send it without attach or detach.`, path);
  if (parts.sync !== undefined) ops.sync = links(parts.sync, `${path}.sync`);
  if (parts.attach !== undefined) ops.attach = links(parts.attach, `${path}.attach`);
  if (parts.detach !== undefined) ops.detach = list(parts.detach, `${path}.detach`).map((rawId, i) => ({ rawId, path: `${path}.detach.${i}` }));
  return ops;
}

function keysOf(value: unknown, allowed: string[], path: string, shape: string): Record<string, unknown> {
  if (!isObject(value)) throw new BadRequestError(`"${path}" must be ${shape}.`, path);
  const unknown = Object.keys(value).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw new BadRequestError(`"${path}.${unknown[0]}" is not a nested operation (${allowed.join(', ')}).`, `${path}.${unknown[0]}`);
  return value;
}

function list(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) throw new BadRequestError(`"${path}" must be an array.`, path);
  return value;
}

/**
 * Related records to create or update: objects, never carrying the foreign key to the parent
 * (the server sets it: 422) nor a relation of their own (one level deep: 400).
 */
function records(relation: NestedRelation, value: unknown, path: string, withId: boolean, errors: FieldErrors): NestedRecord[] {
  const info = relation.related.entry.info;
  return list(value, path).map((raw, i) => {
    const at = `${path}.${i}`;
    if (!isObject(raw)) {
      addError(errors, at, 'Each record must be a JSON object.');
      return { raw: {}, path: at };
    }
    for (const [key, inner] of Object.entries(raw)) {
      if (namesRelation(info, key, inner)) throw new BadRequestError(`Nested writes go one level deep: "${at}.${key}" cannot be written with the ${relation.name}.`, `${at}.${key}`);
    }
    if (Object.prototype.hasOwnProperty.call(raw, relation.foreignKey)) addError(errors, `${at}.${relation.foreignKey}`, `The ${relation.foreignKey} field is set by the server.`);
    if (withId && (raw.id === undefined || raw.id === null || raw.id === '')) addError(errors, `${at}.id`, 'The id field is required.');
    return { raw, path: at };
  });
}
