import type { Express } from 'express';
import { expect } from 'chai';
import supertest from 'supertest';
import type { DocumentedRoute } from '../../lib/openapi/documented-route';
import { startMongo, type MongoHandle } from '../../lib/testing/start-mongo';
import { startPostgres, type PostgresHandle } from '../../lib/testing/start-postgres';

/**
 * Harness of the HTTP contract suite: the example app per driver, started once per mocha run,
 * plus data builders that go through the HTTP API. Expectations in the suite never depend on the
 * driver; ids are the only difference and are always taken from responses.
 */

export type DriverName = 'mongo' | 'sql';
export type Id = string | number;
export type Rec = Record<string, unknown> & { id: Id };
export type Params = Record<string, unknown>;

interface ExampleApp {
  app: Express;
  reset(): Promise<void>;
  close(): Promise<void>;
  info: { driver: string; database: string; adminToken: string };
  api: { routes(): { all(): readonly RouteFacts[] } };
}

/** What the suite reads of a generated route (from the app's route table). */
export type RouteFacts = Pick<DocumentedRoute, 'name' | 'resource' | 'model' | 'action' | 'method' | 'path' | 'access' | 'permissions'>;

/** A user of the example app with an api token, and agents acting as them. */
export interface Member {
  user: Rec;
  token: string;
  agent(): supertest.Agent;
}

interface ExampleAppModule {
  createExampleApp(options: { driver: DriverName; mongoUri?: string; postgresUri?: string; seed?: boolean; adminToken?: string; apiOptions?: Record<string, unknown> }): Promise<ExampleApp>;
}

export const CONTRACT_DRIVERS: DriverName[] = (process.env.CONTRACT_DRIVERS ?? 'mongo,sql')
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is DriverName => s === 'mongo' || s === 'sql');

export const API = '/api/v1';
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
/** Driver text that must never reach a client. */
export const LEAKS = ['E11000', 'duplicate key', 'violates', 'SELECT', 'stack', 'Sequelize', 'Mongo'];

const apps = new Map<DriverName, Promise<ExampleApp>>();
let mongoDb: Promise<MongoHandle> | null = null;
let postgresDb: Promise<PostgresHandle> | null = null;
let poolerStop: (() => Promise<void>) | null = null;

async function appFor(driver: DriverName): Promise<ExampleApp> {
  let pending = apps.get(driver);
  if (!pending) {
    pending = (async () => {
      // Loaded lazily: the example app is optional for the rest of the test tree.
      const mod = (await import('../../example-app/app' as string)) as ExampleAppModule;
      if (driver === 'mongo') {
        mongoDb ??= startMongo();
        return mod.createExampleApp({ driver, mongoUri: (await mongoDb).uri, seed: false });
      }
      postgresDb ??= startPostgres();
      // CONTRACT_SQL_POOLER=1: the app reaches PostgreSQL through PgBouncer in transaction mode (issue 50)
      if (process.env.CONTRACT_SQL_POOLER === '1') {
        const { startPgBouncer } = await import('../../lib/testing/start-pgbouncer');
        const pooler = await startPgBouncer((await postgresDb).uri, { poolSize: 4 });
        poolerStop = pooler.stop;
        return mod.createExampleApp({ driver, postgresUri: pooler.uri, seed: false });
      }
      return mod.createExampleApp({ driver, postgresUri: (await postgresDb).uri, seed: false });
    })();
    apps.set(driver, pending);
  }
  return pending;
}

let rootHookRegistered = false;
function registerRootAfter(): void {
  if (rootHookRegistered) return;
  rootHookRegistered = true;
  // Registered while the first contract file loads, so it lands on the root suite.
  after(async function stopContractApps() {
    this.timeout(60_000);
    await closeLocalKeyApps();
    for (const pending of apps.values()) {
      try {
        await (await pending).close();
      } catch {
        // the app may have failed to start; nothing to close
      }
    }
    apps.clear();
    await poolerStop?.();
    poolerStop = null;
    const pending: Array<Promise<{ stop(): Promise<void> }>> = [];
    if (mongoDb) pending.push(mongoDb);
    if (postgresDb) pending.push(postgresDb);
    mongoDb = null;
    postgresDb = null;
    for (const db of await Promise.allSettled(pending)) if (db.status === 'fulfilled') await db.value.stop();
  });
}

/** Query-string form of request parameters: structured values JSON-encoded, strings as they are. */
export function encodeParams(params: Params): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) out[key] = typeof value === 'string' ? value : JSON.stringify(value);
  return out;
}

export interface Fixture {
  cat: Record<'electronics' | 'phones' | 'laptops' | 'books' | 'empty', Rec>;
  prod: Record<'alpha' | 'beta' | 'gamma' | 'delta' | 'epsilon' | 'zeta', Rec>;
  tag: Record<'red' | 'green' | 'blue', Rec>;
  user: Record<'ann' | 'bob', Rec>;
  review: Record<'a1' | 'a2' | 'g1', Rec>;
}

/** One counter for every context of the run: suites that skip a reset share the database's unique keys. */
let uniqueSeq = 0;

export class ContractContext {
  private example: ExampleApp | null = null;

  constructor(readonly driver: DriverName) {}

  async init(): Promise<void> {
    this.example = await appFor(this.driver);
  }

  get app(): ExampleApp {
    if (!this.example) throw new Error('contract app not started (init() runs in a before hook)');
    return this.example;
  }

  /** An agent authenticated as the superuser (the contract suite runs with authentication on). */
  request(): supertest.Agent {
    return this.as(this.app.info.adminToken);
  }

  /** An agent sending `Authorization: Bearer <token>` (null: anonymous). */
  as(token: string | null): supertest.Agent {
    const agent = supertest.agent(this.app.app);
    return token === null ? agent : agent.set('Authorization', `Bearer ${token}`);
  }

  reset(): Promise<void> {
    return this.app.reset();
  }

  /** A unique suffix for unique fields (sku, email, tag name). */
  unique(prefix = 'u'): string {
    uniqueSeq += 1;
    return `${prefix}-${process.pid}-${uniqueSeq}`;
  }

  /**
   * Another example app on this driver's database, with other library options (the superuser's
   * token is the same); the caller closes it.
   */
  async exampleAppWith(apiOptions: Record<string, unknown>, appOptions: Record<string, unknown> = {}): Promise<ExampleApp> {
    const mod = (await import('../../example-app/app' as string)) as ExampleAppModule;
    const uri = this.driver === 'mongo' ? { mongoUri: await this.mongoUri() } : { postgresUri: (await postgresDb)!.uri };
    return mod.createExampleApp({ driver: this.driver, ...uri, seed: false, adminToken: this.app.info.adminToken, apiOptions, ...appOptions });
  }

  /** GET with parameters JSON-encoded in the query string. */
  get(path: string, params: Params = {}): supertest.Test {
    return this.request().get(`${API}${path}`).query(encodeParams(params));
  }

  /** GET with parameters in a JSON body. */
  getWithBody(path: string, body: Params): supertest.Test {
    return this.request().get(`${API}${path}`).send(body);
  }

  async create(resource: string, body: Params): Promise<Rec> {
    const res = await this.request().post(`${API}/${resource}`).send(body);
    if (res.status !== 200) throw new Error(`create ${resource} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.model as Rec;
  }

  product(overrides: Params = {}): Promise<Rec> {
    return this.create('products', { name: 'Product', sku: this.unique('sku'), price: 10, ...overrides });
  }

  category(overrides: Params = {}): Promise<Rec> {
    return this.create('categories', { name: this.unique('cat'), ...overrides });
  }

  tagRec(overrides: Params = {}): Promise<Rec> {
    return this.create('tags', { name: this.unique('tag'), ...overrides });
  }

  user(overrides: Params = {}): Promise<Rec> {
    return this.create('users', { name: 'User', email: `${this.unique('user')}@example.test`, ...overrides });
  }

  /** A user holding `roles`, created by the superuser with a fresh api token. */
  async member(roles: string[], overrides: Params = {}): Promise<Member> {
    const token = this.unique(`tok-${roles.join('-') || 'none'}`);
    const user = await this.user({ name: `Member ${roles.join(' ')}`, roles, api_token: token, ...overrides });
    return { user, token, agent: () => this.as(token) };
  }

  /** Every generated route of the example app. */
  routes(): readonly RouteFacts[] {
    return this.app.api.routes().all();
  }

  /** A valid id of `resource` that belongs to no record: create one, then delete it. */
  async absentId(resource: string): Promise<Id> {
    const builders: Record<string, () => Promise<Rec>> = {
      products: () => this.product(),
      categories: () => this.category(),
      tags: () => this.tagRec(),
      users: () => this.user(),
    };
    const rec = await builders[resource]();
    const res = await this.request().delete(`${API}/${resource}/${rec.id}`);
    if (res.status !== 200) throw new Error(`delete ${resource} answered ${res.status}`);
    return rec.id;
  }

  async count(resource: string, params: Params = {}): Promise<number> {
    const res = await this.get(`/${resource}`, { ...params, pagination: { page: 1, pageSize: 1 } });
    if (res.status !== 200) throw new Error(`count ${resource} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.total as number;
  }

  async fetch(resource: string, id: Id, params: Params = {}): Promise<Rec> {
    const res = await this.get(`/${resource}/${id}`, params);
    if (res.status !== 200) throw new Error(`show ${resource}/${id} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body as Rec;
  }

  /**
   * Links a product and a tag in the pivot product_tag. Relation routes are outside this suite's
   * scope, so the row is written straight into the app's database (table/collection product_tag).
   */
  async attach(product: Rec, tag: Rec, pivot: { position?: number | null; note?: string | null } = {}): Promise<void> {
    const position = pivot.position ?? null;
    const note = pivot.note ?? null;
    await this.direct(
      async (client) => {
        const cols = await client.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = 'product_tag'`);
        const names = cols.rows.map((r) => r.column_name);
        const values: Record<string, unknown> = { product_id: product.id, tag_id: tag.id, position, note };
        for (const ts of ['created_at', 'updated_at', 'createdAt', 'updatedAt']) if (names.includes(ts)) values[ts] = new Date();
        const keys = Object.keys(values).filter((k) => names.includes(k));
        await client.query(
          `INSERT INTO "product_tag" (${keys.map((k) => `"${k}"`).join(', ')}) VALUES (${keys.map((_, i) => `$${i + 1}`).join(', ')})`,
          keys.map((k) => values[k]),
        );
      },
      async (db, oid) => {
        const collections = await db.listCollections({}, { nameOnly: true }).toArray();
        const name = collections.map((c) => c.name).find((n) => /^product_?tags?$/i.test(n)) ?? 'product_tag';
        await db.collection(name).insertOne({ product_id: oid(product.id), tag_id: oid(tag.id), position, note });
      },
    );
  }

  /** Sets a category's parent straight in the database (bad data the API would refuse: cycles). */
  async rawSetParent(category: Rec, parent: Rec | null): Promise<void> {
    await this.direct(
      (client) => client.query('UPDATE "categories" SET "parent_id" = $1 WHERE "id" = $2', [parent?.id ?? null, category.id]),
      (db, oid) => db.collection('categories').updateOne({ _id: oid(category.id) }, { $set: { parent_id: parent ? oid(parent.id) : null } }),
    );
  }

  /** Sets one field of a record straight in the database (a value the API's validation would refuse). */
  async rawSet(table: string, rec: Rec, field: string, value: string | number | null): Promise<void> {
    await this.direct(
      (client) => client.query(`UPDATE "${table}" SET "${field}" = $1 WHERE "id" = $2`, [value, rec.id]),
      (db, oid) => db.collection(table).updateOne({ _id: oid(rec.id) }, { $set: { [field]: value } }),
    );
  }

  /** Sets a date field of records straight in the database (instants a test needs, e.g. across DST changes). */
  async rawSetDates(table: string, field: string, values: Array<[Rec, Date]>): Promise<void> {
    await this.direct(
      async (client) => {
        for (const [rec, date] of values) await client.query(`UPDATE "${table}" SET "${field}" = $1 WHERE "id" = $2`, [date, rec.id]);
      },
      async (db, oid) => {
        for (const [rec, date] of values) await db.collection(table).updateOne({ _id: oid(rec.id) }, { $set: { [field]: date } });
      },
    );
  }

  /** Sets a user's roles straight in the database (a legacy role name the API would refuse). */
  async rawSetRoles(user: Rec, roles: string[]): Promise<void> {
    await this.direct(
      (client) => client.query('UPDATE "users" SET "roles" = $1 WHERE "id" = $2', [roles, user.id]),
      (db, oid) => db.collection('users').updateOne({ _id: oid(user.id) }, { $set: { roles } }),
    );
  }

  /**
   * A unique index the example app does not declare (`reviews (product_id, comment)`), straight in
   * the database, to make a write fail in the database midway; `drop` removes it.
   */
  async uniqueIndex(table: string, columns: string[], drop = false): Promise<void> {
    const name = `test_unique_${table}_${columns.join('_')}`;
    await this.direct(
      (client) => client.query(drop ? `DROP INDEX IF EXISTS "${name}"` : `CREATE UNIQUE INDEX "${name}" ON "${table}" (${columns.map((c) => `"${c}"`).join(', ')})`),
      (db) => (drop ? db.collection(table).dropIndex(name) : db.collection(table).createIndex(Object.fromEntries(columns.map((c) => [c, 1])), { unique: true, name })),
    );
  }

  /** Runs work on the app's database without the API (a pg client, or the MongoDB database and an ObjectId maker). */
  private async direct(
    sql: (client: import('pg').Client) => Promise<unknown>,
    mongo: (db: import('mongodb').Db, oid: (id: Id) => import('mongodb').ObjectId) => Promise<unknown>,
  ): Promise<void> {
    if (this.driver === 'sql') {
      const { Client } = await import('pg');
      const client = new Client({ connectionString: await this.postgresUri() });
      await client.connect();
      try {
        await sql(client);
      } finally {
        await client.end();
      }
      return;
    }
    const { MongoClient, ObjectId } = await import('mongodb');
    const client = new MongoClient(await this.mongoUri());
    await client.connect();
    try {
      await mongo(client.db(this.app.info.database), (id) => new ObjectId(String(id)));
    } finally {
      await client.close();
    }
  }

  /**
   * The second model pair of the suite (issue 30), on this driver's database next to the example
   * app, without authentication: shelves (a unique `code` besides the id) have many books through
   * `books.shelf_code` -> `shelves.code` (a has-many on a non-primary key column, the spec's
   * localKey), and labels through the pivot `shelf_label` (pivot columns position and note) whose
   * relation route declares `pivotColumns: []` (the spec's "empty meaning all"). Neither book nor
   * shelf has a validation schema: a missing required field is the database's answer.
   * Started once per context; emptied by `reset()` of the returned app.
   */
  localKeyApp(): Promise<LocalKeyApp> {
    this.localKey ??= openLocalKeyApp(this.driver, this.driver === 'mongo' ? this.mongoUri() : this.postgresUri());
    return this.localKey;
  }

  private localKey: Promise<LocalKeyApp> | null = null;

  private async postgresUri(): Promise<string> {
    const base = (await postgresDb)!.uri;
    const database = this.app.info.database;
    // The app may use its own database on the server it was given.
    if (database && /^[A-Za-z0-9_-]+$/.test(database)) return base.replace(/\/[^/?]*(\?|$)/, `/${database}$1`);
    return base;
  }

  private async mongoUri(): Promise<string> {
    return (await mongoDb)!.uri;
  }

  /**
   * The small known data set of the filter tests (see the table in test/contract/README.md):
   * 5 categories (Phones, Laptops under Electronics), 6 products, 3 tags, 2 users, 3 reviews,
   * 3 pivot rows.
   */
  async fixture(): Promise<Fixture> {
    await this.reset();
    const electronics = await this.create('categories', { name: 'Electronics' });
    const phones = await this.create('categories', { name: 'Phones', parent_id: electronics.id });
    const laptops = await this.create('categories', { name: 'Laptops', parent_id: electronics.id });
    const books = await this.create('categories', { name: 'Books' });
    const empty = await this.create('categories', { name: 'Empty' });
    const mk = (name: string, sku: string, price: number, stock: number, status: string, description: string | null, featured: boolean, category: Rec | null) =>
      this.create('products', { name, sku, price, stock, status, description, featured, category_id: category ? category.id : null });
    // Created one at a time so the creation order (and the ids) follow this list.
    const alpha = await mk('Alpha Phone', 'SKU-001', 100, 5, 'active', 'Best (new) phone.', true, phones);
    const beta = await mk('beta phone', 'SKU-002', 200, 0, 'inactive', null, false, phones);
    const gamma = await mk('Gamma Laptop', 'SKU-003', 1500.5, 10, 'active', 'Fast, light laptop', true, laptops);
    const delta = await mk('Delta Book', 'SKU-004', 20, 100, 'draft', 'Cotton * paper', false, books);
    const epsilon = await mk('Epsilon Thing', '00123', 0, 3, 'active', 'axb', false, null);
    const zeta = await mk('Zeta Book', 'SKU-006', 20, 7, 'inactive', 'a.b', false, books);
    const red = await this.create('tags', { name: 'red' });
    const green = await this.create('tags', { name: 'green' });
    const blue = await this.create('tags', { name: 'blue' });
    const ann = await this.create('users', { name: 'Ann', email: 'ann@example.test', roles: ['admin'], api_token: 'secret-ann' });
    const bob = await this.create('users', { name: 'Bob', email: 'bob@example.test', roles: [] });
    const a1 = await this.create('reviews', { product_id: alpha.id, user_id: ann.id, rating: 5, comment: 'Great' });
    const a2 = await this.create('reviews', { product_id: alpha.id, user_id: bob.id, rating: 2, comment: null });
    const g1 = await this.create('reviews', { product_id: gamma.id, user_id: ann.id, rating: 4, comment: 'Good' });
    await this.attach(alpha, red, { position: 1, note: 'first' });
    await this.attach(alpha, green, { position: 2, note: null });
    await this.attach(gamma, red, { position: 1, note: null });
    return {
      cat: { electronics, phones, laptops, books, empty },
      prod: { alpha, beta, gamma, delta, epsilon, zeta },
      tag: { red, green, blue },
      user: { ann, bob },
      review: { a1, a2, g1 },
    };
  }
}

/** One `describe` per driver in CONTRACT_DRIVERS; the body gets that driver's context. */
export function forEachDriver(title: string, body: (ctx: ContractContext) => void): void {
  registerRootAfter();
  for (const driver of CONTRACT_DRIVERS) {
    describe(`${title} [${driver}]`, function () {
      this.timeout(60_000);
      const ctx = new ContractContext(driver);
      before(async function () {
        this.timeout(180_000);
        await ctx.init();
      });
      body(ctx);
    });
  }
}

// ---- assertion helpers -------------------------------------------------------------------------

/** Sorted `name` values of a list of records. */
export function names(rows: unknown): string[] {
  expect(rows, 'data array').to.be.an('array');
  return (rows as Array<{ name: string }>).map((r) => r.name).sort();
}

/** `name` values in response order. */
export function orderedNames(rows: unknown): string[] {
  expect(rows, 'data array').to.be.an('array');
  return (rows as Array<{ name: string }>).map((r) => r.name);
}

/** An error body: status, type, a message (optionally matching), and no driver text. */
export function expectError(res: { status: number; body: unknown; text: string }, status: number, type: string, message?: string | RegExp): Record<string, unknown> {
  expect(res.status, `status of ${res.text}`).to.equal(status);
  const body = res.body as Record<string, unknown>;
  expect(body.type, `type of ${res.text}`).to.equal(type);
  expect(body.status).to.equal(status);
  expect(body.message).to.be.a('string').and.not.equal('');
  if (typeof message === 'string') expect(body.message).to.equal(message);
  else if (message) expect(body.message).to.match(message);
  for (const leak of LEAKS) expect(res.text, `error body leaks "${leak}"`).not.to.include(leak);
  return body;
}

/** A 400 whose message names `word` (a parameter, field, relation or operator). */
export function expectBadRequest(res: { status: number; body: unknown; text: string }, word?: string): Record<string, unknown> {
  const body = expectError(res, 400, 'bad_request');
  if (word) expect(String(body.message), `message names "${word}"`).to.include(word);
  return body;
}

/** A 422 validation body with `errors[path]` present. */
export function expectValidation(res: { status: number; body: unknown; text: string }, ...paths: string[]): Record<string, string[]> {
  const body = expectError(res, 422, 'validation_error');
  const errors = body.errors as Record<string, string[]>;
  expect(errors, 'errors object').to.be.an('object');
  for (const path of paths) {
    expect(errors, `errors has ${path}: ${res.text}`).to.have.property(path);
    expect(errors[path]).to.be.an('array').that.is.not.empty;
    for (const msg of errors[path]) expect(msg).to.be.a('string');
  }
  return errors;
}

/** A record as the API returns it: id, ISO timestamps, never internal or write-only keys. */
export function expectRecordShape(rec: unknown): void {
  const r = rec as Record<string, unknown>;
  expect(r).to.be.an('object');
  expect(['string', 'number']).to.include(typeof r.id);
  if (typeof r.id === 'string') expect(r.id).to.match(/^[0-9a-f]{24}$/);
  else expect(Number.isInteger(r.id)).to.equal(true);
  expect(r).not.to.have.any.keys('_id', '__v', 'api_token');
  if ('created_at' in r) expect(r.created_at).to.match(TIMESTAMP);
  if ('updated_at' in r) expect(r.updated_at).to.match(TIMESTAMP);
}

export function sameId(a: unknown, b: unknown): boolean {
  return String(a) === String(b);
}

// ---- the local-key model pair ------------------------------------------------------------------

/** The shelves/books/labels app of `ContractContext.localKeyApp()`. */
export interface LocalKeyApp {
  app: Express;
  request(): supertest.Agent;
  reset(): Promise<void>;
  close(): Promise<void>;
}

const localKeyApps: LocalKeyApp[] = [];

async function openLocalKeyApp(driver: DriverName, uriPromise: Promise<string>): Promise<LocalKeyApp> {
  const uri = await uriPromise;
  const express = (await import('express')).default;
  const { createRestApi } = await import('../../lib');
  const relations = {
    shelf: {
      books: { kind: 'hasMany' as const, target: 'book', foreignKey: 'shelf_code', localKey: 'code' },
      // the shelf's first book (lowest id), a to-one on the same link: a sort key
      first_book: { kind: 'hasOne' as const, target: 'book', foreignKey: 'shelf_code', localKey: 'code' },
      labels: { kind: 'belongsToMany' as const, target: 'label', pivot: { table: 'shelf_label', parentKey: 'shelf_id', relatedKey: 'label_id', columns: ['position', 'note'], columnTypes: { position: 'integer' as const, note: 'string' as const } } },
    },
  };
  let models: { Shelf: unknown; Book: unknown; Label: unknown };
  let reset: () => Promise<void>;
  let closeDb: () => Promise<void>;
  if (driver === 'mongo') {
    const mongoose = (await import('mongoose')).default;
    const url = new URL(uri);
    const connection = await mongoose.createConnection(url.toString(), { dbName: 'contract_local_key', autoIndex: false }).asPromise();
    const timestamps = { createdAt: 'created_at', updatedAt: 'updated_at' };
    const Shelf = connection.model('LkShelf', new mongoose.Schema({ code: { type: String, required: true, unique: true }, name: { type: String, required: true } }, { timestamps, collection: 'shelves', versionKey: false }));
    const Book = connection.model('LkBook', new mongoose.Schema({ title: { type: String, required: true }, shelf_code: { type: String, default: null } }, { timestamps, collection: 'books', versionKey: false }));
    const Label = connection.model('LkLabel', new mongoose.Schema({ name: { type: String, required: true } }, { timestamps, collection: 'labels', versionKey: false }));
    const ShelfLabel = connection.model(
      'LkShelfLabel',
      new mongoose.Schema({ shelf_id: { type: mongoose.Schema.Types.ObjectId, required: true }, label_id: { type: mongoose.Schema.Types.ObjectId, required: true }, position: { type: Number, default: null }, note: { type: String, default: null } }, { collection: 'shelf_label', versionKey: false }),
    );
    await Shelf.syncIndexes();
    models = { Shelf, Book, Label };
    reset = async () => {
      await Shelf.deleteMany({});
      await Book.deleteMany({});
      await Label.deleteMany({});
      await ShelfLabel.deleteMany({});
    };
    closeDb = () => connection.close();
  } else {
    const { DataTypes, Sequelize } = await import('sequelize');
    const sequelize = new Sequelize(uri, { dialect: 'postgres', logging: false });
    const common = { underscored: true, timestamps: true, createdAt: 'created_at', updatedAt: 'updated_at' } as const;
    const Shelf = sequelize.define('LkShelf', { code: { type: DataTypes.STRING(50), allowNull: false, unique: true }, name: { type: DataTypes.STRING(100), allowNull: false } }, { ...common, tableName: 'lk_shelves' });
    const Book = sequelize.define('LkBook', { title: { type: DataTypes.STRING(100), allowNull: false }, shelf_code: { type: DataTypes.STRING(50), allowNull: true, defaultValue: null } }, { ...common, tableName: 'lk_books' });
    const Label = sequelize.define('LkLabel', { name: { type: DataTypes.STRING(100), allowNull: false } }, { ...common, tableName: 'lk_labels' });
    const ShelfLabel = sequelize.define(
      'LkShelfLabel',
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        shelf_id: { type: DataTypes.INTEGER, allowNull: false, references: { model: 'lk_shelves', key: 'id' }, onDelete: 'CASCADE' },
        label_id: { type: DataTypes.INTEGER, allowNull: false, references: { model: 'lk_labels', key: 'id' }, onDelete: 'CASCADE' },
        position: { type: DataTypes.INTEGER, allowNull: true, defaultValue: null },
        note: { type: DataTypes.STRING(255), allowNull: true, defaultValue: null },
      },
      { underscored: true, timestamps: false, tableName: 'shelf_label', indexes: [{ unique: true, fields: ['shelf_id', 'label_id'] }] },
    );
    await sequelize.sync();
    models = { Shelf, Book, Label };
    reset = async () => {
      await sequelize.query('TRUNCATE "shelf_label", "lk_books", "lk_labels", "lk_shelves" RESTART IDENTITY CASCADE');
    };
    closeDb = () => sequelize.close();
  }
  const api = createRestApi({ bodyLimit: '1mb' });
  api.register(
    { name: 'shelves', MODEL: 'shelf', model: models.Shelf as never, RELATIONS: ['books', 'first_book', 'labels'], relations: relations.shelf, fillable: ['code', 'name'] },
    {
      relationRoutes: {
        oneToMany: { books: { relationship: 'books', foreignKey: 'shelf_code', localKey: 'code', mutation: { dataKey: 'books' } } },
        manyToMany: { labels: { relationship: 'labels', pivotModel: 'shelf_label', parentKey: 'shelf_id', relatedKey: 'label_id', mutation: { dataKey: 'labels', pivotColumns: [] } } },
      },
    },
  );
  api.register({ name: 'books', MODEL: 'book', model: models.Book as never, fillable: ['title', 'shelf_code'] });
  api.register({ name: 'labels', MODEL: 'label', model: models.Label as never, fillable: ['name'] });
  const app = express();
  app.use(API, api.router());
  const handle: LocalKeyApp = {
    app,
    request: () => supertest.agent(app),
    reset,
    async close() {
      await api.close();
      await closeDb();
    },
  };
  localKeyApps.push(handle);
  return handle;
}

/** Closes the local-key apps (the root after hook, before the databases stop). */
async function closeLocalKeyApps(): Promise<void> {
  for (const handle of localKeyApps.splice(0)) await handle.close().catch(() => undefined);
}
