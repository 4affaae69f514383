import { expect } from 'chai';
import type { Document } from 'mongodb';
import { compileList, likeRegex } from '../../../drivers/mongo';
import type { Filter, Operator, Scalar } from '../../../lib/query/ast';
import { catalog, collections, listQuery, OID, oid } from './fixture';

const c = (field: string, operator: Operator, value?: Scalar | Scalar[]): Filter => ({ kind: 'condition', field, operator, value });
const rel = (relation: string, filter: Filter | null): Filter => ({ kind: 'related', relation, filter });
const and = (...filters: Filter[]): Filter => ({ kind: 'and', filters });
const or = (...filters: Filter[]): Filter => ({ kind: 'or', filters });

/** The stages a filter compiles to (everything before the $sort of a product list). */
function stages(filter: Filter, model = 'product'): Document[] {
  const { pipeline } = compileList(listQuery({ model, filter, select: ['id'] }), catalog, collections);
  return pipeline.slice(0, pipeline.findIndex((s) => '$sort' in s));
}

interface Case {
  title: string;
  filter: Filter;
  model?: string;
  match: Document;
}

const OID2 = '65a000000000000000000002';

const cases: Case[] = [
  { title: '=', filter: c('name', '=', 'A'), match: { name: { $eq: 'A' } } },
  { title: '!= (matches missing too, like SQL IS DISTINCT FROM)', filter: c('status', '!=', 'active'), match: { status: { $ne: 'active' } } },
  { title: '>', filter: c('price', '>', 100), match: { price: { $gt: 100 } } },
  { title: '>=', filter: c('price', '>=', 100), match: { price: { $gte: 100 } } },
  { title: '<', filter: c('sku', '<', 'B'), match: { sku: { $lt: 'B' } } },
  { title: '<=', filter: c('stock', '<=', 3), match: { stock: { $lte: 3 } } },
  { title: '= on a boolean', filter: c('featured', '=', true), match: { featured: { $eq: true } } },
  { title: 'like: anchored, case-sensitive', filter: c('name', 'like', '%phone_'), match: { name: { $regex: /^[\s\S]*phone[\s\S](?![\s\S])/ } } },
  { title: 'like escapes regex metacharacters', filter: c('name', 'like', 'a.b*%'), match: { name: { $regex: /^a\.b\*/ } } },
  { title: 'ilike: classes of case variants, no i flag (decision 73)', filter: c('name', 'ilike', '%PHONE%'), match: { name: { $regex: /^(?=([\s\S]*?[pP][hH][oO][nN][eE]))\1/ } } },
  { title: 'not like: $not', filter: c('name', 'not like', '%x'), match: { name: { $not: /^[\s\S]*x(?![\s\S])/ } } },
  { title: 'not ilike: $not of the classes', filter: c('name', 'not ilike', 'x%'), match: { name: { $not: /^[xX]/ } } },
  { title: 'in', filter: c('status', 'in', ['draft', 'inactive']), match: { status: { $in: ['draft', 'inactive'] } } },
  { title: 'in with null (null matches missing)', filter: c('category_id', 'in', [OID, null]), match: { category_id: { $in: [oid(), null] } } },
  { title: 'not in', filter: c('status', 'not in', ['a', 'b']), match: { status: { $nin: ['a', 'b'] } } },
  { title: 'between is inclusive', filter: c('price', 'between', [20, 200]), match: { price: { $gte: 20, $lte: 200 } } },
  {
    title: 'not between: outside or no value',
    filter: c('price', 'not between', [20, 200]),
    match: { $or: [{ price: { $lt: 20 } }, { price: { $gt: 200 } }, { price: { $eq: null } }] },
  },
  { title: 'null: null or missing', filter: c('description', 'null'), match: { description: { $eq: null } } },
  { title: 'not null', filter: c('description', 'not null'), match: { description: { $ne: null } } },
  { title: 'dates stay Date', filter: c('created_at', '>=', new Date('2026-01-01T00:00:00Z')), match: { created_at: { $gte: new Date('2026-01-01T00:00:00Z') } } },
  { title: 'the key is _id, hex -> ObjectId', filter: c('id', '=', OID), match: { _id: { $eq: oid() } } },
  { title: 'foreign key hex -> ObjectId', filter: c('category_id', '!=', OID), match: { category_id: { $ne: oid() } } },
  { title: 'id in -> ObjectIds', filter: c('id', 'in', [OID, OID2]), match: { _id: { $in: [oid(), oid(OID2)] } } },
  { title: 'id that is not hex stays a string (matches nothing)', filter: c('id', '=', 'nope'), match: { _id: { $eq: 'nope' } } },
  { title: 'array = means contains', model: 'user', filter: c('roles', '=', 'admin'), match: { roles: { $eq: 'admin' } } },
  { title: 'array like: some element', model: 'user', filter: c('roles', 'like', 'ad%'), match: { roles: { $regex: /^ad/ } } },
  { title: 'and', filter: and(c('status', '=', 'active'), c('price', '>=', 100)), match: { $and: [{ status: { $eq: 'active' } }, { price: { $gte: 100 } }] } },
  { title: 'or', filter: or(c('price', '=', 0), c('stock', '=', 0)), match: { $or: [{ price: { $eq: 0 } }, { stock: { $eq: 0 } }] } },
  {
    title: 'or inside and inside or',
    filter: or(and(c('status', '=', 'active'), or(c('price', '<', 10), c('stock', '=', 0))), c('featured', '=', true)),
    match: {
      $or: [
        { $and: [{ status: { $eq: 'active' } }, { $or: [{ price: { $lt: 10 } }, { stock: { $eq: 0 } }] }] },
        { featured: { $eq: true } },
      ],
    },
  },
  { title: 'empty or matches nothing', filter: or(), match: { $expr: false } },
];

describe('mongo compileList: conditions', () => {
  for (const t of cases) {
    it(t.title, () => {
      expect(stages(t.filter, t.model)).to.deep.equal([{ $match: t.match }]);
    });
  }

  it('refuses a non-scalar value (no raw client object reaches a query)', () => {
    const evil = { $where: 'sleep(1000)' } as unknown as Scalar;
    expect(() => stages(c('name', '=', evil))).to.throw(TypeError);
  });
});

describe('mongo likeRegex', () => {
  const table: Array<[string, boolean, RegExp]> = [
    ['a.b*%', false, /^a\.b\*/],
    ['100%', false, /^100/],
    // middle segments are found by an atomic lookahead search: no backtracking into them
    ['%a%b%c', false, /^(?=([\s\S]*?a))\1(?=([\s\S]*?b))\2[\s\S]*c(?![\s\S])/],
    ['a%%%b', false, /^a[\s\S]*b(?![\s\S])/],
    ['_x_', false, /^[\s\S]x[\s\S](?![\s\S])/],
    ['(a|b)[c]{2}+?^$\\/-', false, /^\(a\|b\)\[c\]\{2\}\+\?\^\$\\\/\-(?![\s\S])/],
    ['Ab', true, /^[aA][bB](?![\s\S])/],
    // the rule's variants: Kelvin sign and dotted capital I lower to k and i; ς and ß have no other case than ẞ
    ['k1_', true, new RegExp('^[kK\u212a]1[\\s\\S](?![\\s\\S])')],
    ['%İé%', true, /^(?=([\s\S]*?[iIİ][éÉ]))\1/],
    ['ςß.', true, /^ς[ßẞ]\.(?![\s\S])/],
    // a supplementary-plane letter is an alternation (the emulator's regexes have no u flag)
    ['𐐨', true, /^(?:𐐨|𐐀)(?![\s\S])/],
  ];
  for (const [pattern, ci, expected] of table) {
    it(`${pattern}${ci ? ' (ilike)' : ''}`, () => {
      expect(likeRegex(pattern, ci)).to.deep.equal(expected);
    });
  }

  it('matches like SQL LIKE, and in linear time on backtracking shapes', () => {
    const cases: Array<[string, string, boolean]> = [
      ['a%b', 'axxb', true], ['a%b', 'axxbc', false], ['%b', 'b', true], ['%', '', true], ['a_c', 'abbc', false],
      ['%a%a%', 'aa', true], ['%a%a%', 'a', false], ['%ab%cd', 'xxabyycd', true], ['%ab%cd', 'xxabyycdz', false], ['%a_b%', 'zzaxbzz', true],
    ];
    for (const [pattern, value, expected] of cases) expect(likeRegex(pattern, false).test(value), `${pattern} ~ ${value}`).to.equal(expected);
    const started = Date.now();
    expect(likeRegex('%a%a%a%a%a%a%a%a%a%a%a%a%b', false).test('a'.repeat(20_000))).to.equal(false);
    expect(Date.now() - started).to.be.below(1000);
  });

  it('metacharacters match only themselves', () => {
    const re = likeRegex('a.c%', false);
    expect(re.test('a.cdef')).to.equal(true);
    expect(re.test('abcdef')).to.equal(false);
    expect(likeRegex('(.*)', false).test('anything')).to.equal(false);
    expect(likeRegex('(.*)', false).test('(.*)')).to.equal(true);
  });
});

/** $lookup stage helpers: the shapes the compiler emits. */
const belongsTo = (from: string, fk: string, inner: Document[], as: string): Document => ({
  $lookup: { from, let: { k: `$${fk}` }, pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$k'] } } }, ...inner], as },
});
const hasMany = (from: string, fk: string, inner: Document[], as: string): Document => ({
  $lookup: { from, let: { k: '$_id' }, pipeline: [{ $match: { $expr: { $eq: [`$${fk}`, '$$k'] } } }, ...inner], as },
});
const STOP = [{ $limit: 1 }, { $project: { _id: 1 } }];

describe('mongo compileList: relation existence', () => {
  it('belongsTo with a filter: lookup stopping at the first match, then non-empty', () => {
    expect(stages(rel('category', c('name', '=', 'Phones')))).to.deep.equal([
      belongsTo('categories', 'category_id', [{ $match: { name: { $eq: 'Phones' } } }, ...STOP], '__f0'),
      { $match: { __f0: { $ne: [] } } },
    ]);
  });

  it('hasMany without a filter: any related record', () => {
    expect(stages(rel('reviews', null))).to.deep.equal([hasMany('reviews', 'product_id', STOP, '__f0'), { $match: { __f0: { $ne: [] } } }]);
  });

  it('belongsToMany: pivot rows joined with their target, filter on the target', () => {
    expect(stages(rel('tags', c('name', '=', 'sale')))).to.deep.equal([
      {
        $lookup: {
          from: 'product_tag',
          let: { k: '$_id' },
          pipeline: [
            { $match: { $expr: { $eq: ['$product_id', '$$k'] } } },
            {
              $lookup: {
                from: 'tags',
                let: { r: '$tag_id' },
                pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$r'] } } }, { $match: { name: { $eq: 'sale' } } }, ...STOP],
                as: '__t',
              },
            },
            { $unwind: '$__t' },
            ...STOP,
          ],
          as: '__f0',
        },
      },
      { $match: { __f0: { $ne: [] } } },
    ]);
  });

  it('dot path (reviews.user): a lookup inside the lookup pipeline', () => {
    const filter = rel('reviews', rel('user', c('name', '=', 'Ann')));
    expect(stages(filter)).to.deep.equal([
      hasMany(
        'reviews',
        'product_id',
        [
          belongsTo('users', 'user_id', [{ $match: { name: { $eq: 'Ann' } } }, ...STOP], '__f1'),
          { $match: { __f1: { $ne: [] } } },
          ...STOP,
        ],
        '__f0',
      ),
      { $match: { __f0: { $ne: [] } } },
    ]);
  });

  it('plain conditions are matched first; relation filters after their lookups', () => {
    const filter = and(c('price', '>', 10), rel('category', null), c('stock', '>', 0));
    expect(stages(filter)).to.deep.equal([
      { $match: { $and: [{ price: { $gt: 10 } }, { stock: { $gt: 0 } }] } },
      belongsTo('categories', 'category_id', STOP, '__f0'),
      { $match: { __f0: { $ne: [] } } },
    ]);
  });

  it('relation filter inside an or group', () => {
    const filter = or(c('featured', '=', true), rel('reviews', c('rating', '>=', 4)));
    expect(stages(filter)).to.deep.equal([
      hasMany('reviews', 'product_id', [{ $match: { rating: { $gte: 4 } } }, ...STOP], '__f0'),
      { $match: { $or: [{ featured: { $eq: true } }, { __f0: { $ne: [] } }] } },
    ]);
  });

  it('two relation filters get distinct helper fields', () => {
    const filter = and(rel('category', null), rel('reviews', null));
    const out = stages(filter);
    expect(out[out.length - 1]).to.deep.equal({ $match: { $and: [{ __f0: { $ne: [] } }, { __f1: { $ne: [] } }] } });
  });

  it('self relation with a parent filter (category.parent)', () => {
    expect(stages(rel('parent', c('id', '=', OID)), 'category')).to.deep.equal([
      belongsTo('categories', 'parent_id', [{ $match: { _id: { $eq: oid() } } }, ...STOP], '__f0'),
      { $match: { __f0: { $ne: [] } } },
    ]);
  });
});
