import type { Model as MongooseModel } from 'mongoose';
import type { Model as SequelizeModel, ModelStatic } from 'sequelize';
import type { MongoModels } from './mongo/models';
import type { SqlModels } from './sql/models';
import { hashToken, newToken } from './auth';
import * as data from './seed-data';

/**
 * Loads the demo data set straight through the models (not through the API, so seeding works
 * whatever the API's permissions). Expects empty collections/tables.
 */

type Attributes = Record<string, unknown>;
/** Inserts rows in order and returns their ids in the same order. */
type Insert = (model: string, rows: Attributes[]) => Promise<unknown[]>;

function mongoInsert(models: MongoModels): Insert {
  return async (model, rows) => {
    const target = models[model as keyof MongoModels] as unknown as MongooseModel<Attributes>;
    const docs = await target.insertMany(rows);
    return docs.map((doc) => doc._id);
  };
}

function sqlInsert(models: SqlModels): Insert {
  return async (model, rows) => {
    const target = models[model as keyof SqlModels] as ModelStatic<SequelizeModel>;
    const created = await target.bulkCreate(rows, { returning: true });
    return created.map((row) => row.get('id'));
  };
}

export interface SeedSummary {
  categories: number;
  products: number;
  tags: number;
  users: number;
  reviews: number;
  orders: number;
  /** Demo users' api tokens by role (shown at start so the README's curl examples work). */
  tokens: Record<string, string>;
  links: number;
}

export async function seedDemoData(models: MongoModels, driver: 'mongo'): Promise<SeedSummary>;
export async function seedDemoData(models: SqlModels, driver: 'sql'): Promise<SeedSummary>;
export async function seedDemoData(models: MongoModels | SqlModels, driver: 'mongo' | 'sql'): Promise<SeedSummary>;
export async function seedDemoData(models: MongoModels | SqlModels, driver: 'mongo' | 'sql'): Promise<SeedSummary> {
  const insert = driver === 'mongo' ? mongoInsert(models as MongoModels) : sqlInsert(models as SqlModels);
  const ids = new Map<string, unknown>();
  const idOf = (key: string | null): unknown => {
    if (key === null) return null;
    if (!ids.has(key)) throw new Error(`seed: unknown key ${key}`);
    return ids.get(key);
  };

  // One at a time: a child needs its parent's id.
  for (const c of data.categories) {
    const [id] = await insert('Category', [{ name: c.name, parent_id: idOf(c.parent && `cat:${c.parent}`) }]);
    ids.set(`cat:${c.key}`, id);
  }

  const tagIds = await insert('Tag', data.tags.map((name) => ({ name })));
  data.tags.forEach((name, i) => ids.set(`tag:${name}`, tagIds[i]));

  const productIds = await insert(
    'Product',
    data.products.map((p) => ({
      name: p.name,
      sku: p.sku,
      price: p.price,
      cost: p.cost,
      stock: p.stock,
      status: p.status,
      description: p.description,
      featured: p.featured,
      category_id: idOf(p.category && `cat:${p.category}`),
    })),
  );
  data.products.forEach((p, i) => ids.set(`prod:${p.key}`, productIds[i]));

  const links = data.products.flatMap((p) =>
    p.tags.map((tag, i) => ({ product_id: idOf(`prod:${p.key}`), tag_id: idOf(`tag:${tag}`), position: i + 1, note: i === 0 ? 'primary tag' : null })),
  );
  await insert('ProductTag', links);

  // a fresh token per demo user, stored as its hash and answered once (server.ts prints them)
  const tokens = data.users.map(() => newToken());
  const userIds = await insert(
    'User',
    data.users.map((u, i) => ({ name: u.name, email: u.email, roles: u.roles, is_superuser: u.is_superuser, api_token: hashToken(tokens[i]) })),
  );
  data.users.forEach((u, i) => ids.set(`user:${u.key}`, userIds[i]));

  await insert(
    'Review',
    data.reviews.map((r) => ({ product_id: idOf(`prod:${r.product}`), user_id: idOf(r.user && `user:${r.user}`), rating: r.rating, comment: r.comment })),
  );

  await insert(
    'Order',
    data.orders.map((o) => ({ user_id: idOf(`user:${o.user}`), number: o.number, status: o.status, total: o.total, placed_at: new Date(o.placed_at), notes: o.notes, version: 1 })),
  );

  return {
    categories: data.categories.length,
    products: data.products.length,
    tags: data.tags.length,
    users: data.users.length,
    reviews: data.reviews.length,
    orders: data.orders.length,
    links: links.length,
    tokens: Object.fromEntries(data.users.map((u, i) => [u.roles[0], tokens[i]])),
  };
}
