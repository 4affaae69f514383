import { configFromEnv, type RestConfig } from '../../lib/config';
import type { Catalog, FieldInfo, FieldType, IdType, ModelInfo, RelationInfo } from '../../lib/resource/model-info';

/**
 * The example domain (shared/spec/example-app.md) described by hand, as a driver would: the one
 * fixture of the parser and both compilers' table-driven tests.
 */

function field(name: string, type: FieldType, extra: Partial<FieldInfo> = {}): FieldInfo {
  return { name, type, writeOnly: false, nullable: true, ...extra };
}

function model(name: string, idType: IdType, fields: FieldInfo[], relations: RelationInfo[], hierarchyField: string | null = null): ModelInfo {
  const all = [field('id', 'id', { idType, nullable: false }), ...fields, field('created_at', 'date'), field('updated_at', 'date')];
  return {
    name,
    key: 'id',
    idType,
    fields: Object.fromEntries(all.map((f) => [f.name, f])),
    relations: Object.fromEntries(relations.map((r) => [r.name, r])),
    hiddenRelations: {},
    fillable: fields.map((f) => f.name),
    fieldsByRole: {},
    hierarchyField,
    softDelete: null,
    owner: null,
    timestamps: true,
  };
}

const belongsTo = (name: string, target: string, foreignKey: string): RelationInfo => ({ name, kind: 'belongsTo', target, foreignKey, onDelete: 'restrict' });
const hasMany = (name: string, target: string, foreignKey: string): RelationInfo => ({ name, kind: 'hasMany', target, foreignKey });

export function fixtureModels(idType: IdType = 'integer'): ModelInfo[] {
  const fk = (name: string, nullable = true) => field(name, 'id', { idType, nullable });
  const pivot = {
    table: 'product_tag',
    parentKey: 'product_id',
    relatedKey: 'tag_id',
    columns: ['position', 'note'],
    columnTypes: { position: 'integer' as FieldType, note: 'string' as FieldType },
  };
  return [
    model('category', idType, [field('name', 'string'), fk('parent_id')], [
      belongsTo('parent', 'category', 'parent_id'),
      hasMany('children', 'category', 'parent_id'),
      hasMany('products', 'product', 'category_id'),
    ], 'parent_id'),
    model('product', idType, [
      field('name', 'string'), field('sku', 'string'), field('price', 'number'), field('stock', 'integer'),
      field('status', 'string'), field('description', 'string'), field('featured', 'boolean'), fk('category_id'),
    ], [
      belongsTo('category', 'category', 'category_id'),
      hasMany('reviews', 'review', 'product_id'),
      { name: 'tags', kind: 'belongsToMany', target: 'tag', foreignKey: 'product_id', pivot },
    ]),
    model('review', idType, [fk('product_id', false), fk('user_id'), field('rating', 'integer'), field('comment', 'string')], [
      belongsTo('product', 'product', 'product_id'),
      { ...belongsTo('user', 'user', 'user_id'), onDelete: 'setNull' },
    ]),
    model('tag', idType, [field('name', 'string')], [
      { name: 'products', kind: 'belongsToMany', target: 'product', foreignKey: 'tag_id', pivot: { ...pivot, parentKey: 'tag_id', relatedKey: 'product_id' } },
    ]),
    model('user', idType, [
      field('name', 'string'), field('email', 'string'), field('roles', 'array', { itemType: 'string' }),
      field('is_superuser', 'boolean'), field('api_token', 'string', { writeOnly: true }),
    ], [hasMany('reviews', 'review', 'user_id')]),
  ];
}

export function fixtureCatalog(idType: IdType = 'integer'): Catalog {
  const models = new Map(fixtureModels(idType).map((m) => [m.name, m]));
  return {
    model(name: string): ModelInfo {
      const m = models.get(name);
      if (!m) throw new Error(`No model ${name}`);
      return m;
    },
    has: (name: string) => models.has(name),
    all: () => [...models.values()],
  };
}

/** Defaults of decisions.md, independent of the environment the tests run in. */
export function testConfig(overrides: Partial<RestConfig> = {}): RestConfig {
  return {
    ...configFromEnv(),
    maxDepth: 5,
    maxConditions: 100,
    defaultPageSize: 15,
    maxPageSize: 1000,
    validateColumns: true,
    strictColumns: true,
    ...overrides,
  };
}
