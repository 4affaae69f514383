import { expect } from 'chai';
import { BadRequestError, UnknownFieldsError } from '../../../lib/errors';
import type { ModelInfo, RelationInfo } from '../../../lib/resource/model-info';
import type { NestedKeys } from '../../../lib/service/writes/body-keys';
import { checkDeclarationShape } from '../../../lib/service/declarations/check-declaration';
import type { ResourceDeclaration } from '../../../lib/declaration';
import { resourceBodyCheck } from '../../../lib/service/writes/resource-body-keys';

const field = (name: string) => [name, { name, type: 'string', writeOnly: false, nullable: true }] as const;
const model = (name: string, fields: string[], relations: RelationInfo[] = []): ModelInfo =>
  ({ name, key: 'id', idType: 'integer', fields: Object.fromEntries(['id', 'created_at', 'updated_at', ...fields].map(field)), relations: Object.fromEntries(relations.map((r) => [r.name, r])), hiddenRelations: {}, fillable: fields, fieldsByRole: {}, hierarchyField: null, owner: null, softDelete: null, timestamps: true }) as ModelInfo;

const pivot = { table: 'product_tag', parentKey: 'product_id', relatedKey: 'tag_id', columns: ['position', 'note'], columnTypes: { position: 'integer' as const, note: 'string' as const } };
const review = model('review', ['rating', 'product_id']);
const tag = model('tag', ['name']);
const product = model('product', ['name', 'price'], [
  { name: 'reviews', kind: 'hasMany', target: 'review', foreignKey: 'product_id' },
  { name: 'tags', kind: 'belongsToMany', target: 'tag', foreignKey: 'product_id', pivot },
  { name: 'category', kind: 'belongsTo', target: 'category', foreignKey: 'category_id' },
]);
const nested = new Map<string, NestedKeys>([
  ['reviews', { kind: 'oneToMany', pivot: null, related: { entry: { info: review, declaration: {} } } }],
  ['tags', { kind: 'manyToMany', pivot, related: { entry: { info: tag, declaration: {} } } }],
]);

function run(action: string, body: unknown, unknownFields?: 'refuse' | 'ignore'): Record<string, string[]> | null {
  const check = resourceBodyCheck({ info: product, declaration: { unknownFields } }, action, () => nested);
  try {
    check!(body, {});
    return null;
  } catch (error) {
    if (error instanceof UnknownFieldsError) return error.errors;
    throw error;
  }
}

describe('body keys (decision 77): a write body\'s keys, checked before the route runs', () => {
  const table: Array<[string, string, unknown, string[] | null]> = [
    ['a known body', 'store', { id: 1, name: 'n', price: 1, created_at: 'x' }, null],
    ['a misspelled field', 'store', { nmae: 'n' }, ['nmae']],
    ['bulk items', 'store', { product: [{ name: 'a' }, { nmae: 'b' }] }, ['product.1.nmae']],
    ['a bare array', 'store', [{ name: 'a' }, { colour: 'b' }], ['product.1.colour']],
    ['beside the bulk key', 'store', { product: [{ name: 'a' }], extra: 1 }, ['extra']],
    ['nested records and links', 'store', { reviews: [{ rating: 1, ratng: 2 }], tags: [1, { id: 2, tag_id: 2, position: 1, pivot: {}, name: 't', colour: 'r' }] }, ['reviews.0.ratng', 'tags.1.colour']],
    ['nested update parts', 'update', { reviews: { create: [{ x: 1 }], update: [{ id: 1, y: 2 }], delete: [1] }, tags: { attach: [{ id: 1, z: 1 }], detach: [2] } }, ['reviews.create.0.x', 'reviews.update.0.y', 'tags.attach.0.z']],
    ['a relation not opted in is left to the write (400 by name)', 'store', { category: { name: 'c' } }, null],
    ['shapes the write refuses are not walked', 'store', { reviews: 7, tags: { attach: 'x' } }, null],
    ['batch items', 'updateMultiple', { product: [{ id: 1, nmae: 'x' }] }, ['product.0.nmae']],
    ['batch envelope', 'updateMultiple', { product: [], other: 1 }, ['other']],
    ['deleteById envelope', 'deleteById', { ids: [1], force: true }, ['force']],
    ['deleteById bare array', 'deleteById', [1, 2], null],
    ['/validate', 'validate', { nmae: 1 }, ['nmae']],
    ['prototype keys are dropped, not reported', 'store', JSON.parse('{"__proto__": {"x": 1}, "name": "n"}'), null],
  ];
  for (const [what, action, body, keys] of table) {
    it(`${action}: ${what}`, () => {
      const errors = run(action, body);
      if (keys === null) expect(errors).to.equal(null);
      else expect(Object.keys(errors ?? {}).sort()).to.deep.equal([...keys].sort());
    });
  }

  it('a DELETE of one record (and restore, force delete) reads no body: no check', () => {
    for (const action of ['destroy', 'restore', 'forceDelete', 'index', 'show']) expect(resourceBodyCheck({ info: product, declaration: {} }, action, () => nested)).to.equal(null);
  });

  it("unknownFields: 'ignore' keeps the lenient behaviour for the resource's own records", () => {
    expect(run('store', { nmae: 'x', product_extra: 1 }, 'ignore')).to.equal(null);
    // its nested records follow their own resource's declaration
    expect(run('store', { nmae: 'x', reviews: [{ ratng: 1 }] }, 'ignore')).to.have.all.keys('reviews.0.ratng');
  });

  it('decision 50: _relation in a body, and _scenario on a route taking none, are 400s naming them', () => {
    expect(() => run('store', { name: 'n', _relation: 'tags' })).to.throw(BadRequestError, /_relation/);
    expect(() => run('update', { name: 'n', _scenario: 'bulk_update' })).to.throw(BadRequestError, /_scenario/);
  });

  it('the declaration check refuses an unknownFields value that is no choice', () => {
    const decl = { name: 'products', MODEL: 'product', model: {}, fillable: [], unknownFields: 'ignored' } as unknown as ResourceDeclaration;
    expect(() => checkDeclarationShape(decl)).to.throw(/unknownFields/);
    expect(() => checkDeclarationShape({ ...decl, unknownFields: 'ignore' })).not.to.throw();
  });
});
