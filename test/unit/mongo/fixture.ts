import { ObjectId } from 'mongodb';
import type { ListQuery } from '../../../lib/query/ast';
import type { Catalog, FieldInfo, FieldType, ModelInfo, RelationInfo } from '../../../lib/resource/model-info';
import type { MongoModelMap } from '../../../drivers/mongo';

/** A hand-made Catalog and collection map of the example domain, for the pure compiler tests. */

const f = (name: string, type: FieldType, extra: Partial<FieldInfo> = {}): FieldInfo => ({ name, type, writeOnly: false, nullable: true, ...extra });
const id = (name: string): FieldInfo => f(name, 'id', { idType: 'objectId', nullable: name !== 'id' });
const stamps = [f('created_at', 'date'), f('updated_at', 'date')];

function model(name: string, fields: FieldInfo[], relations: RelationInfo[]): ModelInfo {
  return {
    name,
    key: 'id',
    idType: 'objectId',
    fields: Object.fromEntries([id('id'), ...fields, ...stamps].map((x) => [x.name, x])),
    relations: Object.fromEntries(relations.map((r) => [r.name, r])),
    hiddenRelations: {},
    fillable: fields.map((x) => x.name),
    fieldsByRole: {},
    hierarchyField: null,
    timestamps: true,
  };
}

const tagsPivot = { table: 'product_tag', parentKey: 'product_id', relatedKey: 'tag_id', columns: ['position', 'note'], columnTypes: { position: 'integer' as const, note: 'string' as const } };

export const MODELS: ModelInfo[] = [
  model('category', [f('name', 'string'), id('parent_id')], [
    { name: 'parent', kind: 'belongsTo', target: 'category', foreignKey: 'parent_id', onDelete: 'restrict' },
    { name: 'children', kind: 'hasMany', target: 'category', foreignKey: 'parent_id' },
    { name: 'products', kind: 'hasMany', target: 'product', foreignKey: 'category_id' },
  ]),
  model('product', [
    f('name', 'string'), f('sku', 'string'), f('price', 'number'), f('stock', 'integer'), f('status', 'string'),
    f('description', 'string'), f('featured', 'boolean'), id('category_id'),
  ], [
    { name: 'category', kind: 'belongsTo', target: 'category', foreignKey: 'category_id', onDelete: 'restrict' },
    { name: 'reviews', kind: 'hasMany', target: 'review', foreignKey: 'product_id' },
    { name: 'tags', kind: 'belongsToMany', target: 'tag', foreignKey: 'product_id', pivot: tagsPivot },
  ]),
  model('review', [id('product_id'), id('user_id'), f('rating', 'integer'), f('comment', 'string')], [
    { name: 'product', kind: 'belongsTo', target: 'product', foreignKey: 'product_id', onDelete: 'restrict' },
    { name: 'user', kind: 'belongsTo', target: 'user', foreignKey: 'user_id', onDelete: 'setNull' },
  ]),
  model('tag', [f('name', 'string')], [
    { name: 'products', kind: 'belongsToMany', target: 'product', foreignKey: 'tag_id', pivot: { ...tagsPivot, parentKey: 'tag_id', relatedKey: 'product_id' } },
  ]),
  model('user', [
    f('name', 'string'), f('email', 'string'), f('roles', 'array', { itemType: 'string' }), f('is_superuser', 'boolean'),
    f('api_token', 'string', { writeOnly: true }),
  ], [{ name: 'reviews', kind: 'hasMany', target: 'review', foreignKey: 'user_id' }]),
];

export const catalog: Catalog = {
  model(name) {
    const found = MODELS.find((m) => m.name === name);
    if (!found) throw new Error(`unknown model ${name}`);
    return found;
  },
  has: (name) => MODELS.some((m) => m.name === name),
  all: () => MODELS,
};

export const collections: MongoModelMap = {
  category: { collection: 'categories' },
  product: { collection: 'products' },
  review: { collection: 'reviews' },
  tag: { collection: 'tags' },
  user: { collection: 'users' },
};

/** A list query on products, ordered by id, unpaginated, all fields. */
export function listQuery(over: Partial<ListQuery> = {}): ListQuery {
  return { model: 'product', filter: null, select: null, relations: [], order: [{ relations: [], field: 'id', direction: 'asc' }], page: null, limit: null, ...over };
}

export const OID = '65a000000000000000000001';
export const oid = (hex = OID): ObjectId => new ObjectId(hex);

/** Readable product fields as the final $project lists them. */
export const PRODUCT_PROJECT = {
  _id: 1, name: 1, sku: 1, price: 1, stock: 1, status: 1, description: 1, featured: 1, category_id: 1, created_at: 1, updated_at: 1,
};
