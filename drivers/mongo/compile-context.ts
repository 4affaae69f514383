import { CatalogLookup } from '../../lib/resource/model-lookup';
import type { Document, ObjectId } from 'mongodb';
import { mongo } from 'mongoose';
import type { Scalar } from '../../lib/query/ast';
import type { Catalog, FieldInfo, ModelInfo, RelationInfo } from '../../lib/resource/model-info';
import type { ModelMap } from './model-map';
import { OBJECT_ID_HEX as HEX24 } from '../../lib/query/object-id';


/** True for a BSON ObjectId from any copy of the bson package. */
export function isObjectId(value: unknown): value is ObjectId {
  return typeof value === 'object' && value !== null && (value as { _bsontype?: unknown })._bsontype === 'ObjectId';
}

/** A 24-hex string as an ObjectId; anything else unchanged (it then matches nothing). */
export function toObjectId(value: unknown): unknown {
  return typeof value === 'string' && HEX24.test(value) ? new mongo.ObjectId(value) : value;
}

export function isHexId(value: string): boolean {
  return HEX24.test(value);
}

/** Stored path of an exposed field: the key is `_id`. */
export function storedPath(info: ModelInfo, field: string): string {
  return field === info.key ? '_id' : field;
}

/**
 * A typed AST value as it is stored: ids -> ObjectId, date strings -> Date. Only scalars pass:
 * an object that is not a Date can never reach a query (no raw client objects).
 */
export function storedValue(field: FieldInfo, value: Scalar): unknown {
  if (value === null) return null;
  if (value instanceof Date) return value;
  if (typeof value === 'object') throw new TypeError(`Refusing a non-scalar value for ${field.name}`);
  const type = field.type === 'array' ? field.itemType : field.type;
  if (type === 'id' && field.idType !== 'integer') return toObjectId(value);
  if (type === 'date' && typeof value === 'string') {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? value : date;
  }
  return value;
}

/** Shared state of one compilation: catalog lookups and unique helper-field aliases. */
export class CompileContext extends CatalogLookup {
  private counter = 0;

  constructor(
    catalog: Catalog,
    private readonly models: ModelMap,
  ) {
    super(catalog);
  }

  collection(model: string): string {
    const entry = this.models[model];
    if (!entry) throw new Error(`Model ${model} has no MongoDB collection`);
    return entry.collection;
  }

  alias(prefix: string): string {
    return `__${prefix}${this.counter++}`;
  }
}

/**
 * `$lookup` of the records related through a non-pivot relation, with `inner` stages run on them.
 * belongsTo: target._id = this.fk; hasOne/hasMany: target.fk = this._id (or this.localKey).
 */
export function relationLookup(ctx: CompileContext, model: string, rel: RelationInfo, inner: Document[], as: string): Document {
  if (rel.kind === 'belongsToMany') return pivotLookup(ctx, model, rel, [], inner, as);
  const target = ctx.model(rel.target);
  const belongs = rel.kind === 'belongsTo';
  const local = belongs ? storedPath(ctx.model(model), rel.foreignKey) : rel.localKey !== undefined ? storedPath(ctx.model(model), rel.localKey) : '_id';
  const foreign = belongs ? '_id' : storedPath(target, rel.foreignKey);
  // a to-many on a non-primary key (localKey) may be null on the parent: null matches nothing, as in SQL
  const match = !belongs && rel.localKey !== undefined ? { $and: [{ $eq: [`$${foreign}`, '$$k'] }, { $ne: ['$$k', null] }] } : { $eq: [`$${foreign}`, '$$k'] };
  return {
    $lookup: {
      from: ctx.collection(rel.target),
      let: { k: `$${local}` },
      pipeline: [{ $match: { $expr: match } }, ...inner],
      as,
    },
  };
}

/**
 * `$lookup` through a pivot collection: pivot rows of this record (`pivotInner` runs on them, after
 * the joined target `__t` is attached and required), each joined with its target (`targetInner`).
 */
export function pivotLookup(ctx: CompileContext, _model: string, rel: RelationInfo, pivotInner: Document[], targetInner: Document[], as: string): Document {
  const pivot = rel.pivot;
  if (!pivot) throw new Error(`Relation ${rel.name} has no pivot`);
  return {
    $lookup: {
      from: pivot.table,
      let: { k: '$_id' },
      pipeline: [
        { $match: { $expr: { $eq: [`$${pivot.parentKey}`, '$$k'] } } },
        {
          $lookup: {
            from: ctx.collection(rel.target),
            let: { r: `$${pivot.relatedKey}` },
            pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$r'] } } }, ...targetInner],
            as: '__t',
          },
        },
        { $unwind: '$__t' },
        ...pivotInner,
      ],
      as,
    },
  };
}
