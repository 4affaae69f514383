import type { ModelStatic, Model } from 'sequelize';
import { DeclarationError } from '../../lib/errors/declaration-error';
import { mergeDeclaredRelation } from '../../lib/resource/merge-relation';
import type { DescribedModel } from '../../lib/driver';
import type { ModelDeclaration } from '../../lib/resource/relation-declaration';
import type { FieldInfo, FieldType, OnDelete, PivotInfo, RelationInfo } from '../../lib/resource/model-info';
import type { StorageInfo } from './model-map';

type AnyModel = ModelStatic<Model>;

interface AttributeLike {
  type?: { key?: string; type?: { key?: string } };
  field?: string;
  primaryKey?: boolean;
  unique?: unknown;
  allowNull?: boolean;
  references?: unknown;
  onDelete?: string;
  defaultValue?: unknown;
  collate?: unknown;
}

interface AssociationLike {
  associationType: string;
  as: string;
  target: AnyModel;
  foreignKey: string;
  otherKey?: string;
  through?: { model: AnyModel };
  options?: { onDelete?: string };
}

export interface DescribedSqlModel {
  described: DescribedModel;
  table: StorageInfo;
  /** Largest key the id column can hold (INTEGER vs BIGINT), for parseId. */
  maxId: number;
}

const TYPES: Record<string, FieldType> = {
  STRING: 'string', TEXT: 'string', CITEXT: 'string', CHAR: 'string', UUID: 'string', ENUM: 'string', TSVECTOR: 'string',
  INTEGER: 'integer', BIGINT: 'integer', SMALLINT: 'integer', MEDIUMINT: 'integer', TINYINT: 'integer',
  FLOAT: 'number', DOUBLE: 'number', 'DOUBLE PRECISION': 'number', DECIMAL: 'number', REAL: 'number', NUMBER: 'number',
  BOOLEAN: 'boolean',
  DATE: 'date', DATEONLY: 'date', NOW: 'date',
  ARRAY: 'array',
  JSON: 'object', JSONB: 'object', HSTORE: 'object',
};

/**
 * Sequelize types whose PostgreSQL equality agrees with comparing the values' JSON (StorageInfo
 * `plainEquality`). Not CITEXT (case-insensitive), CHAR (blank-padded), JSON (no equality), arrays,
 * HSTORE or TSVECTOR; text with a collation of its own is left out too (a nondeterministic one).
 */
const PLAIN_EQUALITY = new Set(['STRING', 'TEXT', 'UUID', 'ENUM', 'INTEGER', 'BIGINT', 'SMALLINT', 'MEDIUMINT', 'TINYINT', 'FLOAT', 'DOUBLE', 'DOUBLE PRECISION', 'DECIMAL', 'REAL', 'BOOLEAN', 'DATE', 'DATEONLY']);

/** PostgreSQL types without LIKE or collation: compared as text. */
const TEXT_CAST = new Set(['ENUM', 'UUID']);

export function fieldTypeOf(attr: AttributeLike): FieldType {
  return TYPES[attr.type?.key ?? ''] ?? 'string';
}

export function attributesOf(model: AnyModel): Record<string, AttributeLike> {
  return model.getAttributes() as unknown as Record<string, AttributeLike>;
}

export function tableOf(model: AnyModel): { table: string; schema?: string } {
  const name = model.getTableName() as unknown;
  if (typeof name === 'string') return { table: name };
  const t = name as { tableName: string; schema?: string };
  return t.schema ? { table: t.tableName, schema: t.schema } : { table: t.tableName };
}

function onDeleteOf(raw: string | undefined): OnDelete {
  switch ((raw ?? '').toUpperCase()) {
    case 'CASCADE':
      return 'cascade';
    case 'SET NULL':
      return 'setNull';
    default:
      return 'restrict';
  }
}

/** Fields, table and relations of a Sequelize model merged with its declaration. */
export function describeSequelizeModel(
  declaration: ModelDeclaration,
  modelNameOf: (nativeName: string) => string | undefined,
): DescribedSqlModel {
  const model = declaration.model as AnyModel;
  const attrs = attributesOf(model);
  const writeOnly = new Set(declaration.writeOnly ?? []);
  const key = model.primaryKeyAttribute ?? 'id';
  const associations = Object.values((model as unknown as { associations: Record<string, AssociationLike> }).associations ?? {});
  const fkFields = new Set(associations.filter((a) => a.associationType === 'BelongsTo').map((a) => a.foreignKey));

  const fields: Record<string, FieldInfo> = {};
  const columns: Record<string, string> = {};
  const textCasts: Record<string, 'text' | 'text[]'> = {};
  const plainEquality: Record<string, true> = {};
  for (const [name, attr] of Object.entries(attrs)) {
    if (PLAIN_EQUALITY.has(attr.type?.key ?? '') && attr.collate === undefined) plainEquality[name] = true;
    columns[name] = attr.field ?? name;
    let type = fieldTypeOf(attr);
    const isId = attr.primaryKey || ((fkFields.has(name) || attr.references !== undefined) && type === 'integer');
    const info: FieldInfo = { name, type, writeOnly: writeOnly.has(name), nullable: !attr.primaryKey && attr.allowNull !== false };
    if (isId) {
      type = 'id';
      info.type = 'id';
      info.idType = 'integer';
    }
    if (TEXT_CAST.has(attr.type?.key ?? '')) textCasts[name] = 'text';
    if (type === 'array' && TEXT_CAST.has(attr.type?.type?.key ?? '')) textCasts[name] = 'text[]';
    if (type === 'array') info.itemType = TYPES[attr.type?.type?.key ?? ''] ?? 'string';
    fields[name] = info;
  }

  const derived: Record<string, RelationInfo> = {};
  /** Associations whose target is not a resource, by alias (for the RELATIONS error). */
  const unexposed: Record<string, string> = {};
  for (const assoc of associations) {
    const target = modelNameOf(assoc.target.name);
    if (!target) {
      unexposed[assoc.as] = assoc.target.name; // a model the app does not expose
      continue;
    }
    const rel = relationOf(assoc, target, attrs);
    if (rel) derived[rel.name] = rel;
  }
  for (const [name, decl] of Object.entries(declaration.relations ?? {})) derived[name] = mergeDeclaredRelation(name, decl, derived[name], declaration.MODEL);

  const allowed = new Set(declaration.RELATIONS ?? []);
  const relations: Record<string, RelationInfo> = {};
  const hiddenRelations: Record<string, RelationInfo> = {};
  for (const name of allowed) {
    if (derived[name]) continue;
    const why = unexposed[name] ? ` Here the association ${name} targets Sequelize model ${unexposed[name]}, which is not registered as a resource.` : '';
    throw new DeclarationError(
      declaration.MODEL,
      'RELATIONS',
      `relation "${name}" cannot be resolved.${why} On a Sequelize model, associations are detected (belongsTo, hasOne, hasMany, belongsToMany through a model), each named by its alias \`as\`; ` +
        `the target model must be registered as a resource. Otherwise declare it: relations: {${name}: {kind, target, foreignKey | pivot}} (a belongs-to then defaults to the key ${name}_id). ` +
        `Relations found on this model: ${Object.keys(derived).join(', ') || 'none'}.`,
    );
  }
  for (const [name, rel] of Object.entries(derived)) (allowed.has(name) ? relations : hiddenRelations)[name] = rel;

  const stamps = (model as unknown as { _timestampAttributes?: { createdAt?: string; updatedAt?: string; deletedAt?: string } })._timestampAttributes ?? {};
  const paranoid = (model as unknown as { options?: { paranoid?: boolean } }).options?.paranoid === true;
  const keyType = attrs[key]?.type?.key;
  return {
    described: {
      key,
      idType: 'integer',
      fields,
      relations,
      hiddenRelations,
      timestamps: Boolean(stamps.createdAt || stamps.updatedAt),
      uniqueKeys: uniqueKeysOf(model, attrs, columns),
      // a paranoid model is soft-deletable through its deletedAt attribute
      ...(paranoid && stamps.deletedAt ? { paranoid: stamps.deletedAt } : {}),
    },
    table: { ...tableOf(model), columns, textCasts, plainEquality, indexed: indexedFields(model, attrs, columns), createdAt: stamps.createdAt ?? null, updatedAt: stamps.updatedAt ?? null },
    maxId: keyType === 'BIGINT' ? Number.MAX_SAFE_INTEGER : 2147483647,
  };
}

/** Fields that lead an index the model declares (primary key, unique attributes, `indexes`): a filter on one can use it. */
function indexedFields(model: AnyModel, attrs: Record<string, AttributeLike>, columns: Record<string, string>): string[] {
  const fieldOf = new Map(Object.entries(columns).map(([field, column]) => [column, field]));
  const out = new Set<string>();
  for (const [name, attr] of Object.entries(attrs)) if (attr.primaryKey || attr.unique) out.add(name);
  const indexes = (model as unknown as { options?: { indexes?: Array<{ fields?: Array<string | { name?: string; attribute?: string }> }> } }).options?.indexes ?? [];
  for (const index of indexes) {
    const first = index.fields?.[0];
    const name = typeof first === 'string' ? first : (first?.attribute ?? first?.name);
    if (name) out.add(fieldOf.get(name) ?? name);
  }
  return [...out];
}

/** The field sets of the model's unique constraints: the primary key, unique attributes (a shared `unique` name is one composite), unique indexes. */
function uniqueKeysOf(model: AnyModel, attrs: Record<string, AttributeLike>, columns: Record<string, string>): string[][] {
  const fieldOf = new Map(Object.entries(columns).map(([field, column]) => [column, field]));
  const out: string[][] = [];
  const composite = new Map<string, string[]>();
  for (const [name, attr] of Object.entries(attrs)) {
    if (attr.primaryKey || attr.unique === true) out.push([name]);
    else if (typeof attr.unique === 'string') composite.set(attr.unique, [...(composite.get(attr.unique) ?? []), name]);
    else if (attr.unique && typeof attr.unique === 'object' && typeof (attr.unique as { name?: unknown }).name === 'string') {
      const group = (attr.unique as { name: string }).name;
      composite.set(group, [...(composite.get(group) ?? []), name]);
    }
  }
  out.push(...composite.values());
  const indexes = (model as unknown as { options?: { indexes?: Array<{ unique?: boolean; where?: unknown; fields?: Array<string | { name?: string; attribute?: string }> }> } }).options?.indexes ?? [];
  for (const index of indexes) {
    // a partial index does not make the key unique over the whole table
    if (!index.unique || index.where) continue;
    const names = (index.fields ?? []).map((f) => (typeof f === 'string' ? f : (f.attribute ?? f.name ?? '')));
    if (names.length > 0 && names.every((n) => n !== '')) out.push(names.map((n) => fieldOf.get(n) ?? n));
  }
  return out;
}

/** A has-one/has-many association's sourceKey when it is not the primary key (the spec's localKey). */
function localKeyOf(assoc: AssociationLike): { localKey?: string } {
  const source = (assoc as { sourceKey?: unknown; source?: { primaryKeyAttribute?: unknown } }).sourceKey;
  const primary = (assoc as { source?: { primaryKeyAttribute?: unknown } }).source?.primaryKeyAttribute;
  return typeof source === 'string' && typeof primary === 'string' && source !== primary ? { localKey: source } : {};
}

function relationOf(assoc: AssociationLike, target: string, attrs: Record<string, AttributeLike>): RelationInfo | null {
  const name = assoc.as;
  switch (assoc.associationType) {
    case 'BelongsTo':
      return { name, kind: 'belongsTo', target, foreignKey: assoc.foreignKey, onDelete: onDeleteOf(attrs[assoc.foreignKey]?.onDelete ?? assoc.options?.onDelete) };
    case 'HasOne':
      return { name, kind: 'hasOne', target, foreignKey: assoc.foreignKey, ...localKeyOf(assoc) };
    case 'HasMany':
      return { name, kind: 'hasMany', target, foreignKey: assoc.foreignKey, ...localKeyOf(assoc) };
    case 'BelongsToMany': {
      const through = assoc.through?.model;
      if (!through || !assoc.otherKey) return null;
      const pivotAttrs = attributesOf(through);
      const column = (attr: string): string => pivotAttrs[attr]?.field ?? attr;
      const stamps = (through as unknown as { _timestampAttributes?: Record<string, string> })._timestampAttributes ?? {};
      const skip = new Set([assoc.foreignKey, assoc.otherKey, ...Object.values(stamps)]);
      const extra = Object.entries(pivotAttrs).filter(([n, a]) => !skip.has(n) && !a.primaryKey);
      const pivot: PivotInfo = {
        table: tableOf(through).table,
        parentKey: column(assoc.foreignKey),
        relatedKey: column(assoc.otherKey),
        columns: extra.map(([n]) => column(n)),
        columnTypes: Object.fromEntries(extra.map(([n, a]) => [column(n), fieldTypeOf(a)])),
      };
      return { name, kind: 'belongsToMany', target, foreignKey: pivot.parentKey, pivot };
    }
    default:
      return null;
  }
}
