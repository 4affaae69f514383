import { feathers, type HookContext } from '@feathersjs/feathers';
import { default as feathersExpress, json, rest } from '@feathersjs/express';
import { KnexService } from '@feathersjs/knex';
import knex, { type Knex } from 'knex';
import { isoMicro } from './format';

type Row = Record<string, unknown>;

/** Dates to the API's timestamp strings (the answers must be byte-for-byte comparable). */
function out(row: Row): Row {
  for (const key of Object.keys(row)) if (row[key] instanceof Date) row[key] = isoMicro(row[key] as Date);
  return row;
}

/**
 * The Node peer: Feathers 5 with its knex adapter, written the way its documentation shows
 * (services, hooks, `params.knex` for a custom condition, related records loaded by hooks with
 * `$in` queries), serving the benchmark's requests with the same answers as the library:
 * GET /products?price[$gte]=10&category_like=Gadgets%&$limit=25&$skip=50&$sort[id]=1 (the list),
 * GET /products/:id (show with category.parent and reviews), POST /products (bulk create).
 * Same database, pool of 5 like Sequelize's default.
 */
export function feathersPeer(uri: string): { app: (port: number, host: string) => Promise<import('node:http').Server>; close: () => Promise<void> } {
  const db: Knex = knex({ client: 'pg', connection: uri, pool: { min: 0, max: 5 } });
  const app = feathersExpress(feathers());
  app.use(json({ limit: '1mb' }));
  app.configure(rest());
  const options = { Model: db, paginate: { default: 25, max: 100 } };
  app.use('products', new KnexService({ ...options, name: 'products', multi: ['create'] }));
  app.use('categories', new KnexService({ ...options, name: 'categories' }));
  app.use('reviews', new KnexService({ ...options, name: 'reviews' }));
  const products = app.service('products') as unknown as KnexService;
  const productHooks = app.service('products') as unknown as { hooks(map: Record<string, Record<string, ((c: HookContext) => Promise<void>)[]>>): void };

  /** category (with its parent) and reviews for a list of products: three `$in` finds. */
  const withRelations = async (rows: Row[]): Promise<Row[]> => {
    const all = { paginate: false as const };
    const categoryIds = [...new Set(rows.map((p) => p.category_id).filter((id) => id !== null))];
    const [categories, reviews] = (await Promise.all([
      app.service('categories').find({ ...all, query: { id: { $in: categoryIds } } }),
      app.service('reviews').find({ ...all, query: { product_id: { $in: rows.map((p) => p.id) }, $sort: { id: 1 } } }),
    ])) as unknown as [Row[], Row[]];
    const parentIds = [...new Set(categories.map((c) => c.parent_id).filter((id) => id !== null))];
    const parents = new Map(((await app.service('categories').find({ ...all, query: { id: { $in: parentIds } } })) as unknown as Row[]).map((c) => [c.id, out(c)]));
    const categoryById = new Map(categories.map((c) => [c.id, { ...out(c), parent: c.parent_id === null ? null : (parents.get(c.parent_id) ?? null) }]));
    const reviewsOf = new Map<unknown, Row[]>(rows.map((p) => [p.id, []]));
    for (const review of reviews) reviewsOf.get(review.product_id)?.push(out(review));
    return rows.map((p) => ({ ...out(p), category: p.category_id === null ? null : (categoryById.get(p.category_id) ?? null), reviews: reviewsOf.get(p.id) ?? [] }));
  };

  productHooks.hooks({
    before: {
      find: [
        // the relation filter: EXISTS on the product's category, through params.knex
        async (context: HookContext) => {
          const { category_like: pattern, ...query } = (context.params.query ?? {}) as Row;
          // query strings carry strings; Feathers' schema converters would make these numbers
          if (query.$sort) query.$sort = Object.fromEntries(Object.entries(query.$sort as Row).map(([k, v]) => [k, Number(v)]));
          for (const key of ['$limit', '$skip'] as const) if (query[key] !== undefined) query[key] = Number(query[key]);
          context.params.query = query;
          if (pattern === undefined) return;
          context.params.knex = products.createQuery({ ...context.params, query }).whereExists(function (this: Knex.QueryBuilder) {
            this.select(1).from('categories').whereRaw('categories.id = products.category_id').andWhere('categories.name', 'like', String(pattern));
          });
        },
      ],
      // the library's bulk body is {product: [...]}; Feathers creates from an array
      create: [
        async (context: HookContext) => {
          // and stamps the timestamps itself (a data resolver's job in a generated Feathers app)
          const now = new Date();
          context.data = (context.data as { product: Row[] }).product.map((item) => ({ ...item, created_at: now, updated_at: now }));
        },
      ],
    },
    after: {
      find: [
        async (context: HookContext) => {
          const page = context.result as { total: number; limit: number; skip: number; data: Row[] };
          const data = await withRelations(page.data);
          const current = Math.floor(page.skip / page.limit) + 1;
          context.result = {
            current_page: current,
            data,
            total: page.total,
            per_page: page.limit,
            last_page: Math.max(1, Math.ceil(page.total / page.limit)),
            from: data.length ? page.skip + 1 : null,
            to: data.length ? page.skip + data.length : null,
          };
        },
      ],
      get: [
        async (context: HookContext) => {
          context.result = (await withRelations([context.result as Row]))[0];
        },
      ],
      create: [
        async (context: HookContext) => {
          const created = Array.isArray(context.result) ? (context.result as Row[]) : [context.result as Row];
          context.result = { success: true, models: created.map((model) => ({ success: true, model: out(model) })) };
        },
      ],
    },
  });
  return { app: (port, host) => app.listen(port, host), close: () => db.destroy() };
}
