import type { Model, Schema } from 'mongoose';
import { DeclarationError } from '../../lib/errors/declaration-error';
import { mergeDeclaredRelation } from '../../lib/resource/merge-relation';
import type { DescribedModel } from '../../lib/driver';
import type { ModelDeclaration } from '../../lib/resource/relation-declaration';
import type { FieldInfo, FieldType, OnDelete, RelationInfo } from '../../lib/resource/model-info';

interface SchemaTypeLike {
  instance?: string;
  isRequired?: boolean;
  options?: { ref?: unknown; integer?: unknown; onDelete?: unknown };
  embeddedSchemaType?: SchemaTypeLike;
  caster?: SchemaTypeLike;
}

interface VirtualLike {
  options?: { ref?: unknown; localField?: unknown; foreignField?: unknown; justOne?: unknown };
}

const TYPES: Record<string, FieldType> = {
  String: 'string', UUID: 'string',
  Number: 'number', Double: 'number', Decimal128: 'number',
  Int32: 'integer', BigInt: 'integer',
  Boolean: 'boolean',
  Date: 'date',
  ObjectId: 'id',
  Array: 'array',
  Mixed: 'object', Embedded: 'object', Map: 'object', Subdocument: 'object', DocumentArray: 'array',
};

function typeOf(path: SchemaTypeLike): FieldType {
  const type = TYPES[path.instance ?? ''] ?? 'object';
  // A Number path may say `integer: true` (the declaration's yup schema enforces it either way).
  return type === 'number' && path.options?.integer === true ? 'integer' : type;
}

/** Native name of a `ref` (a model name, or a Model). */
function refName(ref: unknown): string | undefined {
  if (typeof ref === 'string') return ref;
  if (typeof ref === 'function' && typeof (ref as { modelName?: unknown }).modelName === 'string') return (ref as unknown as { modelName: string }).modelName;
  return undefined;
}

function onDeleteOf(raw: unknown): OnDelete {
  return raw === 'cascade' || raw === 'setNull' ? raw : 'restrict';
}

export interface DescribedMongoModel {
  described: DescribedModel;
  collection: string;
}

/** Fields from the schema paths; relations from `ref`s and virtual populates, merged with the declaration. */
export function describeMongooseModel(declaration: ModelDeclaration, modelNameOf: (nativeName: string) => string | undefined): DescribedMongoModel {
  const model = declaration.model as Model<unknown>;
  const schema = model.schema as Schema & { paths: Record<string, SchemaTypeLike>; virtuals: Record<string, VirtualLike> };
  const writeOnly = new Set(declaration.writeOnly ?? []);
  const fields: Record<string, FieldInfo> = {
    id: { name: 'id', type: 'id', idType: 'objectId', writeOnly: false, nullable: false },
  };
  const derived: Record<string, RelationInfo> = {};
  /** Why a ref did not become a relation, by relation name (for the RELATIONS error). */
  const unresolved: Record<string, string> = {};
  const conventional: Array<[string, RelationInfo]> = [];
  for (const [name, path] of Object.entries(schema.paths)) {
    if (name === '_id' || name === '__v' || name.includes('.')) continue;
    const type = typeOf(path);
    const info: FieldInfo = { name, type, writeOnly: writeOnly.has(name), nullable: !path.isRequired };
    if (type === 'id') info.idType = 'objectId';
    const item = type === 'array' ? (path.embeddedSchemaType ?? path.caster) : undefined;
    if (type === 'array') {
      info.itemType = item ? typeOf(item) : 'string';
      if (info.itemType === 'id') info.idType = 'objectId';
    }
    fields[name] = info;
    const ref = refName(path.options?.ref);
    if (type === 'id' && ref) {
      const target = modelNameOf(ref);
      const rel: RelationInfo | null = target ? { name, kind: 'belongsTo', target, foreignKey: name, onDelete: onDeleteOf(path.options?.onDelete) } : null;
      if (name.endsWith('_id') && name.length > 3) {
        // `writer_id` with ref: relation `writer` (the key stays its own field), unless a `writer` ref path exists
        const relName = name.slice(0, -3);
        if (rel) conventional.push([relName, { ...rel, name: relName }]);
        else unresolved[relName] ??= `the path ${name} refers to mongoose model ${ref}, which is not registered as a resource`;
      } else if (rel) {
        // `writer` with ref: relation `writer` whose key is the `writer` field itself (the populate convention)
        derived[name] = rel;
      } else {
        unresolved[name] = `the path ${name} refers to mongoose model ${ref}, which is not registered as a resource`;
      }
    }
    const itemRef = item ? refName(item.options?.ref) : undefined;
    if (itemRef) {
      unresolved[name] = `the path ${name} is an array of refs to ${itemRef}; an array of ids is not a relation (store the links in a pivot collection and declare relations.${name}: {kind: 'belongsToMany', target, pivot: {table, parentKey, relatedKey}})`;
    }
  }
  for (const [relName, rel] of conventional) if (!derived[relName]) derived[relName] = rel;
  for (const [name, virtual] of Object.entries(schema.virtuals ?? {})) {
    const rel = virtualRelation(name, virtual, modelNameOf);
    if (rel) derived[name] = rel;
  }
  for (const [name, decl] of Object.entries(declaration.relations ?? {})) derived[name] = mergeDeclaredRelation(name, decl, derived[name], declaration.MODEL);

  const allowed = new Set(declaration.RELATIONS ?? []);
  for (const name of allowed) {
    if (derived[name]) continue;
    const why = unresolved[name] ? ` Here ${unresolved[name]}.` : '';
    throw new DeclarationError(
      declaration.MODEL,
      'RELATIONS',
      `relation "${name}" cannot be resolved.${why} On a mongoose model a relation comes from: a belongs-to ObjectId path with ref: '<Model>', named "${name}" (relation and key share the name, as with populate) or "${name}_id"; ` +
        `a virtual with ref, localField and foreignField (has-one/has-many); the referenced model must be registered as a resource. ` +
        `Otherwise declare it: relations: {${name}: {kind, target, foreignKey | pivot}}. Relations found on this model: ${Object.keys(derived).join(', ') || 'none'}.`,
    );
  }
  const relations: Record<string, RelationInfo> = {};
  const hiddenRelations: Record<string, RelationInfo> = {};
  for (const [name, rel] of Object.entries(derived)) (allowed.has(name) ? relations : hiddenRelations)[name] = rel;

  const stamps = schema.get('timestamps') as unknown;
  return {
    described: { key: 'id', idType: 'objectId', fields, relations, hiddenRelations, timestamps: Boolean(stamps), uniqueKeys: uniqueKeysOf(schema) },
    collection: model.collection.collectionName,
  };
}

function virtualRelation(name: string, virtual: VirtualLike, modelNameOf: (nativeName: string) => string | undefined): RelationInfo | null {
  const o = virtual.options ?? {};
  const ref = refName(o.ref);
  const target = ref ? modelNameOf(ref) : undefined;
  if (!target || typeof o.localField !== 'string' || typeof o.foreignField !== 'string') return null;
  if (o.localField === '_id') return { name, kind: o.justOne ? 'hasOne' : 'hasMany', target, foreignKey: o.foreignField };
  if (o.foreignField === '_id') return { name, kind: 'belongsTo', target, foreignKey: o.localField, onDelete: 'restrict' };
  // a virtual from another key of this model (localField) to the target's field: has-many on a non-primary key
  return { name, kind: o.justOne ? 'hasOne' : 'hasMany', target, foreignKey: o.foreignField, localKey: o.localField };
}

/** The field sets of the schema's unique indexes (`unique: true` paths and `schema.index(..., {unique: true})`), `id` for `_id`; partial indexes left out. */
function uniqueKeysOf(schema: unknown): string[][] {
  const out: string[][] = [['id']];
  const indexes = (schema as { indexes?: () => Array<[Record<string, unknown>, Record<string, unknown> | undefined]> }).indexes?.() ?? [];
  for (const [fields, options] of indexes) {
    if (!options?.unique || options.partialFilterExpression) continue;
    out.push(Object.keys(fields).map((f) => (f === '_id' ? 'id' : f)));
  }
  return out;
}
