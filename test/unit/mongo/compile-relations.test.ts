import { expect } from 'chai';
import type { Document } from 'mongodb';
import { compileList } from '../../../drivers/mongo';
import type { Filter, RelationLoad } from '../../../lib/query/ast';
import { catalog, collections, listQuery, PRODUCT_PROJECT } from './fixture';

const load = (name: string, columns: string[] | null = null, children: RelationLoad[] = [], filter: Filter | null = null): RelationLoad => ({ name, columns, children, filter });
const ORDER = [{ relations: [], field: 'id', direction: 'asc' as const }];

/** The eager-load stages and final projection of a root list (between $sort and the end). */
function compile(relations: RelationLoad[], model = 'product', select: string[] | null = ['name']) {
  const out = compileList(listQuery({ model, relations, select, order: ORDER }), catalog, collections);
  return { stages: out.pipeline.slice(1), shape: out.shape };
}

const match = (field: string, variable: string): Document => ({ $match: { $expr: { $eq: [`$${field}`, `$$${variable}`] } } });

describe('mongo compileList: eager loading', () => {
  it('belongsTo: one $lookup by the foreign key, at most one record; the fk joins the root projection', () => {
    const { stages, shape } = compile([load('category', ['name'])]);
    expect(stages).to.deep.equal([
      {
        $lookup: {
          from: 'categories',
          let: { k: '$category_id' },
          pipeline: [match('_id', 'k'), { $limit: 1 }, { $project: { _id: 1, name: 1 } }],
          as: 'category',
        },
      },
      { $project: { _id: 1, name: 1, category_id: 1, category: 1 } },
    ]);
    expect(shape).to.deep.equal({
      fields: ['id', 'name', 'category_id'],
      relations: [{ name: 'category', many: false, pivot: null, shape: { fields: ['id', 'name'], relations: [] } }],
    });
  });

  it('hasMany: by the target foreign key (kept in the columns), ordered by _id', () => {
    const { stages, shape } = compile([load('reviews', ['rating'])]);
    expect(stages[0]).to.deep.equal({
      $lookup: {
        from: 'reviews',
        let: { k: '$_id' },
        pipeline: [match('product_id', 'k'), { $sort: { _id: 1 } }, { $project: { _id: 1, rating: 1, product_id: 1 } }],
        as: 'reviews',
      },
    });
    expect(shape.relations[0]).to.include({ many: true, pivot: null });
    expect(shape.relations[0].shape.fields).to.deep.equal(['id', 'rating', 'product_id']);
  });

  it('all columns = every readable field (write-only ones never)', () => {
    const { stages } = compile([load('reviews', null, [load('user')])]);
    const userLookup = (stages[0].$lookup as Document).pipeline[2] as Document;
    expect(userLookup.$lookup.pipeline[2]).to.deep.equal({
      $project: { _id: 1, name: 1, email: 1, roles: 1, is_superuser: 1, created_at: 1, updated_at: 1 },
    });
  });

  it('belongsToMany: pivot rows by parent key, joined with targets, merged with `pivot`', () => {
    const { stages, shape } = compile([load('tags', ['name'])]);
    expect(stages[0]).to.deep.equal({
      $lookup: {
        from: 'product_tag',
        let: { k: '$_id' },
        pipeline: [
          match('product_id', 'k'),
          { $lookup: { from: 'tags', let: { r: '$tag_id' }, pipeline: [match('_id', 'r'), { $project: { _id: 1, name: 1 } }], as: '__t' } },
          { $unwind: '$__t' },
          { $sort: { '__t._id': 1 } },
          { $replaceWith: { $mergeObjects: ['$__t', { pivot: { product_id: '$product_id', tag_id: '$tag_id', position: '$position', note: '$note' } }] } },
        ],
        as: 'tags',
      },
    });
    expect(shape.relations[0]).to.deep.include({ many: true, pivot: ['product_id', 'tag_id', 'position', 'note'] });
  });

  it('hasOne: first by _id', () => {
    const hasOne = { ...catalog.model('product').relations.reviews, name: 'topReview', kind: 'hasOne' as const };
    const product = catalog.model('product');
    product.hiddenRelations.topReview = hasOne;
    try {
      const { stages, shape } = compile([load('topReview', ['rating'])]);
      expect((stages[0].$lookup as Document).pipeline).to.deep.equal([
        match('product_id', 'k'),
        { $sort: { _id: 1 } },
        { $limit: 1 },
        { $project: { _id: 1, rating: 1, product_id: 1 } },
      ]);
      expect(shape.relations[0].many).to.equal(false);
    } finally {
      delete product.hiddenRelations.topReview;
    }
  });

  it('nested children: lookups inside the lookup pipeline, before its projection', () => {
    const { stages, shape } = compile([load('reviews', ['rating'], [load('user', ['name'])])]);
    expect((stages[0].$lookup as Document).pipeline).to.deep.equal([
      match('product_id', 'k'),
      { $sort: { _id: 1 } },
      { $lookup: { from: 'users', let: { k: '$user_id' }, pipeline: [match('_id', 'k'), { $limit: 1 }, { $project: { _id: 1, name: 1 } }], as: 'user' } },
      { $project: { _id: 1, rating: 1, product_id: 1, user_id: 1, user: 1 } },
    ]);
    expect(shape.relations[0].shape.relations[0]).to.deep.equal({ name: 'user', many: false, pivot: null, shape: { fields: ['id', 'name'], relations: [] } });
  });

  it('_nested filter narrows the loaded records (with a relation filter inside)', () => {
    const filter: Filter = { kind: 'and', filters: [
      { kind: 'condition', field: 'rating', operator: '>=', value: 4 },
      { kind: 'related', relation: 'user', filter: { kind: 'condition', field: 'name', operator: 'like', value: 'A%' } },
    ] };
    const { stages } = compile([load('reviews', ['rating'], [], filter)]);
    const pipeline = (stages[0].$lookup as Document).pipeline as Document[];
    expect(pipeline[1]).to.deep.equal({ $match: { rating: { $gte: 4 } } });
    expect(pipeline[2].$lookup).to.include({ from: 'users', as: '__f0' });
    expect(pipeline[3]).to.deep.equal({ $match: { __f0: { $ne: [] } } });
    expect(pipeline[4]).to.deep.equal({ $sort: { _id: 1 } });
  });

  it('_nested filter on a belongsToMany applies to the targets', () => {
    const filter: Filter = { kind: 'condition', field: 'name', operator: '=', value: 'sale' };
    const { stages } = compile([load('tags', ['name'], [], filter)]);
    const pivot = (stages[0].$lookup as Document).pipeline as Document[];
    expect(pivot[1].$lookup.pipeline).to.deep.equal([match('_id', 'r'), { $match: { name: { $eq: 'sale' } } }, { $project: { _id: 1, name: 1 } }]);
  });

  it('select null on the root: every readable field', () => {
    const { stages } = compile([], 'product', null);
    expect(stages).to.deep.equal([{ $project: PRODUCT_PROJECT }]);
  });

  it('offset pages put the eager loads inside the data facet (after the window)', () => {
    const out = compileList(listQuery({ relations: [load('category', ['name'])], select: ['name'], order: ORDER, page: { kind: 'offset', page: 1, size: 2 } }), catalog, collections);
    const data = (out.pipeline[1].$facet as Document).data as Document[];
    expect(data.map((s) => Object.keys(s)[0])).to.deep.equal(['$skip', '$limit', '$lookup', '$project']);
  });

  it('an unknown relation is a programming error', () => {
    expect(() => compile([load('nope')])).to.throw(/Unknown relation product.nope/);
  });
});

describe('mongo compileList: the loaded-records cap (loadLimit)', () => {
  const capped = (relations: RelationLoad[]) => compileList(listQuery({ model: 'product', relations, select: ['name'], order: ORDER, loadLimit: 5 }), catalog, collections).pipeline;
  const lookups = (stages: Document[]): Document[] => stages.filter((s) => s.$lookup).map((s) => s.$lookup as Document);

  it('a to-many lookup stops after loadLimit + 1 records, after its filter and before its nested loads', () => {
    const [reviews] = lookups(capped([load('reviews', ['rating'], [load('user', ['name'])])]));
    const pipeline = reviews.pipeline as Document[];
    const at = pipeline.findIndex((s) => s.$limit === 6);
    expect(at, JSON.stringify(pipeline)).to.be.greaterThan(0);
    expect(pipeline.findIndex((s) => s.$lookup)).to.be.greaterThan(at);
  });

  it('a many-to-many lookup keeps loadLimit + 1 pivot rows; to-one lookups keep their $limit 1; no cap without loadLimit', () => {
    const [tags, category] = lookups(capped([load('tags'), load('category')]));
    expect((tags.pipeline as Document[]).at(-1)).to.deep.equal({ $limit: 6 });
    expect(category.pipeline as Document[]).to.deep.include({ $limit: 1 });
    expect(category.pipeline as Document[]).to.not.deep.include({ $limit: 6 });
    const plain = lookups(compileList(listQuery({ model: 'product', relations: [load('reviews')], select: ['name'], order: ORDER }), catalog, collections).pipeline);
    expect(JSON.stringify(plain)).to.not.include('"$limit":6');
  });
});
