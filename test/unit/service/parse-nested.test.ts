import { expect } from 'chai';
import { BadRequestError, ValidationError } from '../../../lib/errors';
import type { ModelInfo, RelationInfo } from '../../../lib/resource/model-info';
import type { NestedRelation } from '../../../lib/service/nested/nested-config';
import { hasNested, parseNestedItem } from '../../../lib/service/nested/parse-nested';
import type { ResourceService } from '../../../lib/service/resource-service';
import type { FieldErrors } from '../../../lib/service/writes/validate-input';

const rel = (name: string, kind: RelationInfo['kind'], target: string, foreignKey: string, pivot?: RelationInfo['pivot']): RelationInfo => ({ name, kind, target, foreignKey, pivot });
const model = (name: string, fillable: string[], relations: RelationInfo[]): ModelInfo =>
  ({ name, key: 'id', idType: 'integer', fields: {}, relations: Object.fromEntries(relations.map((r) => [r.name, r])), hiddenRelations: {}, fillable, fieldsByRole: {}, hierarchyField: null, owner: null, softDelete: null }) as ModelInfo;

const pivot = { table: 'product_tag', parentKey: 'product_id', relatedKey: 'tag_id', columns: ['position', 'note'], columnTypes: { position: 'integer' as const, note: 'string' as const } };
const review = model('review', ['rating', 'comment', 'product_id'], [rel('product', 'belongsTo', 'product', 'product_id'), rel('user', 'belongsTo', 'user', 'user_id')]);
const product = model('product', ['name', 'category_id'], [rel('category', 'belongsTo', 'category', 'category_id'), rel('reviews', 'hasMany', 'review', 'product_id'), rel('tags', 'belongsToMany', 'tag', 'product_id', pivot)]);
const service = (info: ModelInfo) => ({ entry: { info } }) as unknown as ResourceService;
const relations = new Map<string, NestedRelation>([
  ['reviews', { name: 'reviews', kind: 'oneToMany', relation: product.relations.reviews, related: service(review), foreignKey: 'product_id', pivot: null, writablePivot: [] }],
  ['tags', { name: 'tags', kind: 'manyToMany', relation: product.relations.tags, related: service(model('tag', ['name'], [])), foreignKey: 'product_id', pivot, writablePivot: ['position', 'note'] }],
]);

function parse(body: unknown, mode: 'create' | 'update', prefix = '', max = 1000) {
  const errors: FieldErrors = {};
  const item = parseNestedItem(body, product, relations, mode, prefix, errors, { max, used: 0 });
  return { item, errors };
}

describe('parse-nested: a body item -> the parent attributes and its nested parts', () => {
  it('splits the relations off the attributes (POST: records to create, ids or {id, pivot} to attach)', () => {
    const { item, errors } = parse({ name: 'P', reviews: [{ rating: 5 }], tags: [1, { id: 2, position: 3, note: 'n', other: 'ignored' }] }, 'create');
    expect(errors).to.deep.equal({});
    expect(item.attributes).to.deep.equal({ name: 'P' });
    const [reviews, tags] = item.nested;
    expect(reviews.create.map((r) => [r.path, r.raw])).to.deep.equal([['reviews.0', { rating: 5 }]]);
    expect(tags.attach.map((e) => [e.rawId, e.values, e.path])).to.deep.equal([[1, {}, 'tags.0'], [2, { position: 3, note: 'n' }, 'tags.1']]);
  });

  it('update forms: {create, update, delete}; an array syncs; {attach, detach, sync}', () => {
    const { item } = parse({ reviews: { create: [{ rating: 1 }], update: [{ id: 7, rating: 2 }], delete: [8] }, tags: [4] }, 'update');
    const [reviews, tags] = item.nested;
    expect(reviews.update.map((r) => r.path)).to.deep.equal(['reviews.update.0']);
    expect(reviews.delete).to.deep.equal([{ rawId: 8, path: 'reviews.delete.0' }]);
    expect(tags.sync!.map((e) => e.rawId)).to.deep.equal([4]);
    const links = parse({ tags: { attach: [5], detach: [6] } }, 'update').item.nested[0];
    expect([links.attach.map((e) => e.rawId), links.detach.map((d) => d.rawId), links.sync]).to.deep.equal([[5], [6], null]);
  });

  const errorCases: Array<[string, unknown, 'create' | 'update', string]> = [
    ['the foreign key sent by the client', { reviews: [{ rating: 1, product_id: 3 }] }, 'create', 'reviews.0.product_id'],
    ['an update without id', { reviews: { update: [{ rating: 1 }] } }, 'update', 'reviews.update.0.id'],
    ['a record that is no object', { reviews: [5] }, 'create', 'reviews.0'],
    ['a bulk item\'s path', { reviews: [{ product_id: 1 }] }, 'create', 'product.2.reviews.0.product_id'],
  ];
  for (const [what, body, mode, key] of errorCases) {
    it(`422 keyed by path: ${what}`, () => {
      expect(Object.keys(parse(body, mode, what.startsWith('a bulk') ? 'product.2.' : '').errors)).to.deep.equal([key]);
    });
  }

  const refused: Array<[string, unknown, 'create' | 'update', RegExp]> = [
    ['a relation not opted in', { category: { name: 'c' } }, 'create', /"category".*nestedWrites: reviews, tags/],
    ['a relation not opted in, whatever its value', { category: 3 }, 'create', /"category"/],
    ['nesting deeper than one level', { reviews: [{ rating: 1, user: { name: 'u' } }] }, 'create', /one level deep: "reviews\.0\.user"/],
    ['a link carrying a second level', { tags: [{ id: 1, products: [] }] }, 'create', /one level deep: "tags\.0\.products"/],
  ];
  const tagInfo = relations.get('tags')!.related.entry.info;
  tagInfo.relations.products = rel('products', 'belongsToMany', 'product', 'tag_id', pivot);
  for (const [what, body, mode, message] of refused) {
    it(`400 naming it: ${what}`, () => {
      expect(() => parse(body, mode)).to.throw(BadRequestError, message);
    });
  }

  // decision 75: a value that is not the shape of decision 58 is a 422 naming the path
  const shapes: Array<[string, unknown, 'create' | 'update', string]> = [
    ['a number for a one-to-many', { reviews: 7 }, 'create', 'reviews'],
    ['a number for a many-to-many', { tags: 5 }, 'create', 'tags'],
    ['null for a many-to-many update', { tags: null }, 'update', 'tags'],
    ['an unknown operation', { reviews: { replace: [] } }, 'update', 'reviews.replace'],
    ['an array for a one-to-many update', { reviews: [] }, 'update', 'reviews'],
    ['a number for the deletes', { reviews: { delete: 3 } }, 'update', 'reviews.delete'],
    ['sync with attach', { tags: { sync: [], attach: [] } }, 'update', 'tags'],
    ['an object for a many-to-many create', { tags: { attach: [] } }, 'create', 'tags'],
  ];
  for (const [what, body, mode, key] of shapes) {
    it(`422 naming the path: ${what}`, () => {
      let error: unknown = null;
      try {
        parse(body, mode);
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(ValidationError);
      expect(Object.keys((error as ValidationError).errors)).to.deep.equal([key]);
    });
  }

  it('ids that are no scalar ids are 422s naming their path (never echoed as ids)', () => {
    const { errors } = parse({ reviews: { update: [{ id: { $ne: null }, rating: 1 }], delete: [[1], 2] }, tags: { detach: [{ a: 1 }] } }, 'update');
    expect(Object.keys(errors).sort()).to.deep.equal(['reviews.delete.0', 'reviews.update.0.id', 'tags.detach.0']);
  });

  it('a link naming its record by id and tag_id: the same value is one record, different values a 422 naming the item', () => {
    expect(parse({ tags: [{ id: 3, tag_id: '3' }] }, 'create').item.nested[0].attach.map((e) => String(e.rawId))).to.deep.equal(['3']);
    expect(() => parse({ tags: [{ id: 3, tag_id: 4 }] }, 'create')).to.throw(ValidationError, /tags\.0|different/);
  });

  it('more than REST_MAX_NESTED_RECORDS items in one request is a 422 naming the relation and the limit, counted over every relation and item', () => {
    expect(() => parse({ reviews: [{ rating: 1 }, { rating: 2 }], tags: [1, 2] }, 'create', '', 3)).to.throw(ValidationError, /at most 3 nested records.*"tags"/);
    expect(() => parse({ reviews: { create: [{}, {}], delete: [1, 2] } }, 'update', '', 3)).to.throw(ValidationError, /at most 3/);
    expect(parse({ reviews: [{ rating: 1 }], tags: [1, 2] }, 'create', '', 3).errors).to.deep.equal({});
  });

  it('a link without an id is a 422 at its path; any value under a relation name is a nested write', () => {
    expect(() => parse({ tags: [{ position: 1 }] }, 'create')).to.throw(ValidationError);
    expect(hasNested(product, { name: 'x', category: 3 })).to.equal(true);
    expect(hasNested(product, { name: 'x', category: {} })).to.equal(true);
    expect(hasNested(product, { name: 'x' })).to.equal(false);
  });
});
