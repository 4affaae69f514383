import { expect } from 'chai';
import { ClientProbe, exampleTypes, readmeClientSnippet } from '../../support/client-probe';

/**
 * Probe files compiled against the typed client as a user gets it (the package's exports, its
 * declarations, strict, nodenext) with the example shop's generated types: what the server
 * serves compiles, what it would refuse does not, each refusal with the message expected.
 */
const HEAD = `import { createClient, ApiRequestError, type RelationItem } from 'generic-resource-rest/client';
import { resources, type Api, type Category, type Product, type Review, type Tag } from './api-types.js';
const api = createClient<Api>({ baseUrl: 'http://localhost:3000/api/v1', resources });
const expectType = <T>() => <V extends T>(value: V): V => value;
void [ApiRequestError, expectType];
export type Items = RelationItem<Api['tags']>;
export type { Category, Product, Review, Tag };
`;

const POSITIVE = `${HEAD}
export async function probe(): Promise<void> {
  const list = await api.products.list({
    select: ['name', 'price'],
    relations: ['category:name,id', 'tags', 'reviews.user:email'],
    orderby: [{ 'category.name': 'asc' }, { price: 'desc' }],
    filter: (f) => f.and(f.where('price', '>', 3), f.where('name', 'ilike', '%a%'), f.has('reviews', (r) => r.where('rating', '>=', 4)), f.has('category', (c) => c.has('parent', (p) => p.where('name', '=', 'x')))),
  });
  const first = list.data[0];
  expectType<string>()(first.id);
  expectType<string>()(first.name);
  expectType<number>()(first.price);
  expectType<Category | null>()(first.category);
  expectType<string[]>()(first.tags.map((t) => t.name));
  expectType<number | undefined>()(first.tags[0].pivot?.position);
  expectType<Review[]>()(first.reviews);
  // @ts-expect-error not selected
  void first.sku;
  // @ts-expect-error not loaded
  void (await api.products.list({ select: ['name'] })).data[0].category;
  const all = await api.products.show('a', { relations: ['all'] });
  expectType<Category | null>()(all.category);
  expectType<string>()(all.sku);
  const one = await api.products.list({ orderby: { 'category.created_at': 'desc' }, relations: ['category.parent.children', 'category.products:sku'] });
  expectType<string>()(one.data[0].sku);
  const page = await api.products.list({ pagination: { page: 1, pageSize: 5 }, attr: { status: 'active' } });
  expectType<number>()(page.total);
  const cursor = await api.products.list({ pagination: { infinity: true }, select: ['sku'] });
  expectType<string | null>()(cursor.next_cursor);
  expectType<string>()(cursor.data[0].sku);
  const firstOne = await api.reviews.first({ relations: ['product:name'], orderby: [{ 'product.price': 'asc' }] });
  expectType<Product | null | undefined>()(firstOne.data?.product);
  const bulk = await api.products.createMany([{ name: 'a', sku: 'a', price: 1 }, { name: 'b', sku: 'b', price: 2, tags: ['t'] }]);
  expectType<true>()(bulk.success);
  expectType<true>()(bulk.models[0].success);
  expectType<Product>()(bulk.models[0].model);
  const batch = await api.products.updateMany([{ id: bulk.models[0].model.id, price: 2 }, { id: 'b', featured: true }]);
  expectType<Product>()(batch.models[1].model);
  expectType<{ success: true }>()(await api.products.validate({ name: 'a', sku: 'b', price: 1 }));
  expectType<number>()((await api.products.destroyMany(['a'])).deleted);
  const groups = await api.products.aggregate({ group_by: ['status', 'category.name'], aggregate: { count: '*', sum: ['price'] }, having: (h) => h.and(h.where('count', '>', 1), h.where('sum.price', '>=', 10)), orderby: { 'sum.price': 'desc' } });
  expectType<string | null>()(groups.data[0].group['category.name']);
  await api.products.aggregate({ group_by: ['status'], aggregate: { count: '*', sum: ['price'] }, having: { and: ['count|>|1', { or: ['sum.price|>=|10', 'status|null'] }] } });
  expectType<number | null>()(groups.data[0].sum.price);
  const months = await api.products.aggregate({ group_by: [{ field: 'created_at', bucket: 'month', tz: 'Europe/Berlin' }, 'status', { field: 'updated_at', bucket: 'week', week_start: 'sunday' }], having: (h) => h.and(h.where('count', '>', 1), h.where('created_at', '>=', '2021-01-01')) });
  expectType<string | null>()(months.data[0].group.created_at);
  expectType<string | null>()(months.data[0].group.updated_at);
  const tagged = await api.tags.list({ relations: ['products:name'], filter: (f) => f.has('products', (p) => p.where('price', '<', 3)) });
  expectType<number>()(tagged.data[0].products[0].price);
  const tagsOfProduct = await api.products.relation('p', 'tags').list();
  expectType<string>()(tagsOfProduct.data[0].name);
  const chosen: Array<RelationItem<Api['products']>> = ['category', 'tags:name'];
  expectType<Category | null | undefined>()((await api.products.list({ relations: chosen })).data[0].category);
}
`;

/** One refusal per file: [name, source, what the message says]. */
const NEGATIVE: Array<[string, string, string]> = [
  ['unknown relation', `api.products.list({ relations: ['catgory'] });`, `Type '"catgory"' is not assignable to type`],
  ['unknown relation in a path', `api.products.list({ relations: ['category.parnt'] });`, `Type '"category.parnt"' is not assignable`],
  ['unknown column of a relation', `api.products.list({ relations: ['category:nmae'] });`, 'category has no column nmae'],
  ['relation key as a select field', `api.products.list({ select: ['category'] });`, `Type '"category"' is not assignable to type`],
  ['relation key as a filter field', `api.products.list({ filter: (f) => f.where('category', '=', 'x') });`, `Argument of type '"category"' is not assignable`],
  ['unknown filter field', `api.products.list({ filter: (f) => f.where('colour', '=', 'red') });`, `Argument of type '"colour"' is not assignable`],
  ['unknown has() relation', `api.products.list({ filter: (f) => f.has('tagz', (t) => t.where('name', '=', 'x')) });`, `Argument of type '"tagz"' is not assignable`],
  ['unknown field of the related record', `api.products.list({ filter: (f) => f.has('reviews', (r) => r.where('stars', '>', 3)) });`, `Argument of type '"stars"' is not assignable`],
  ['sort by a misspelled to-one path', `api.products.list({ orderby: [{ 'category.nmae': 'asc' }] });`, `'category.nmae'' does not exist`],
  ['sort by a to-many path', `api.products.list({ orderby: [{ 'reviews.rating': 'asc' }] });`, `'reviews.rating'' does not exist`],
  ['sort by a relation key', `api.products.list({ orderby: { category: 'asc' } });`, `'category' does not exist`],
  ['createMany without a required field', `api.products.createMany([{ name: 'a', price: 1 }]);`, `Property '"sku"' is missing`],
  ['updateMany without ids', `api.products.updateMany([{ price: 1 }]);`, `Property 'id' is missing`],
  ['validate with an unknown field', `api.products.validate({ name: 'a', sku: 'b', price: 1, colour: 'red' });`, `'colour' does not exist`],
  ['group by a misspelled path', `api.products.aggregate({ group_by: ['category.nmae'] });`, `Type '"category.nmae"' is not assignable`],
  ['change feed: a relation key as a select field', `api.products.changes({ select: ['category'] });`, `Type '"category"' is not assignable`],
  ['change feed: a relation filter (own fields only)', `api.products.changes({ filter: (f) => f.has('reviews', () => 'rating|>|1') });`, `Argument of type '"reviews"' is not assignable to parameter of type 'never'`],
  ['having (raw form) on a function not asked', `api.products.aggregate({ aggregate: { count: '*' }, having: { and: ['avg.price|>|1'] } });`, `Type '"avg.price|>|1"' is not assignable`],
  ['having on count when only sum is asked', `api.products.aggregate({ aggregate: { sum: ['price'] }, having: (h) => h.where('count', '>', 1) });`, `Argument of type '"count"' is not assignable`],
  ['week_start on a bucket that is not a week', `api.products.aggregate({ group_by: [{ field: 'created_at', bucket: 'month', week_start: 'sunday' }] });`, `'week_start' does not exist`],
  ['a bucket of an unknown field', `api.products.aggregate({ group_by: [{ field: 'placed', bucket: 'day' }] });`, `Type '"placed"' is not assignable`],
  ['having on a function not asked', `api.products.aggregate({ aggregate: { count: '*' }, having: (h) => h.where('sum.price', '>', 1) });`, `Argument of type '"sum.price"' is not assignable`],
];

describe('typed client probes (strict, nodenext, against the package layout)', function () {
  this.timeout(60_000);
  let probe: ClientProbe;

  before(() => {
    probe = new ClientProbe().write({ 'api-types.ts': exampleTypes() });
  });
  after(() => probe?.close());

  it('what the server serves compiles; each refusal fails with its message, in one file each', () => {
    const files: Record<string, string> = { 'positive.ts': POSITIVE };
    NEGATIVE.forEach(([, source], i) => (files[`negative-${i}.ts`] = `${HEAD}\n${source}\n`));
    const diagnostics = probe.type('module').write(files).compile(Object.keys(files));
    expect(diagnostics['positive.ts'] ?? [], 'positive.ts').to.deep.equal([]);
    expect(diagnostics['api-types.ts'] ?? []).to.deep.equal([]);
    NEGATIVE.forEach(([name, , message], i) => {
      const found = diagnostics[`negative-${i}.ts`] ?? [];
      expect(found, name).to.have.length(1);
      expect(found[0], name).to.contain(message);
    });
  });

  it("the README's client snippet compiles as written, in an ES module project and in a CommonJS one", () => {
    probe.write({ 'readme.ts': readmeClientSnippet() });
    for (const kind of ['module', 'commonjs'] as const) expect(probe.type(kind).compile(['readme.ts']), kind).to.deep.equal({});
  });

  it('types that did not resolve (a wrong import path) give the import error only, no misleading operator errors', () => {
    probe.write({
      'unresolved.ts': `import { createClient } from 'generic-resource-rest/client';
import type { Api } from './api-types';
export async function run(): Promise<void> {
  const api = createClient<Api>({ baseUrl: 'http://localhost:3000/api/v1' });
  await api.products.list({ filter: (f) => f.and(f.where('price', '>', 20), f.where('name', 'ilike', '%lamp%')) });
}
`,
    });
    const found = probe.type('module').compile(['unresolved.ts'])['unresolved.ts'] ?? [];
    expect(found).to.have.length(1);
    expect(found[0]).to.contain("Did you mean './api-types.js'?");
  });
});
