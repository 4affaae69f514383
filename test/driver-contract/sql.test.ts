import { createSqlDriver } from '../../drivers/sql';
import type { Id } from '../../lib/driver';
import { freshPostgresDatabase } from '../support/databases';
import { defineModels, describeAll } from '../unit/sql/db-models';
import { runDriverContract, type Conformance } from './cases';
import type { HarnessFactory, ModelName } from './harness';

/**
 * The SQL driver against PostgreSQL, built the way test/unit/sql/driver-db.test.ts builds it: the
 * Sequelize models of db-models.ts (real foreign keys) in a throw-away database, described and
 * bound without the registry.
 */
const factory: HarnessFactory = async () => {
  const database = await freshPostgresDatabase('driver_contract');
  const db = defineModels(database.uri, () => undefined);
  await db.sequelize.sync({ force: true });
  const driver = createSqlDriver(db.sequelize);
  const catalog = describeAll(driver, db.declarations);
  const models = { category: db.Category, product: db.Product, review: db.Review, tag: db.Tag, user: db.User };
  return {
    name: 'sql',
    driver,
    catalog,
    missingId: 2_000_000_000,
    reset: async () => {
      await db.sequelize.query('TRUNCATE product_tag, reviews, products, categories, tags, users RESTART IDENTITY CASCADE');
    },
    count: (model: ModelName) => models[model].count(),
    pivotLinks: async () => {
      const rows = (await db.ProductTag.findAll({ raw: true, order: [['product_id', 'ASC'], ['tag_id', 'ASC']] })) as unknown as Array<Record<string, unknown>>;
      return rows.map((r) => ({ parentId: r.product_id as Id, relatedId: r.tag_id as Id, position: (r.position as number | null) ?? null, note: (r.note as string | null) ?? null }));
    },
    close: async () => {
      await db.sequelize.close();
      await database.drop();
    },
  };
};

const conformance: Conformance = {
  passes: [
    'list: equality filter',
    'list: comparison, in and null filters',
    'list: and / or filters',
    'list: order and select',
    'list: offset page with total',
    'list: cursor page',
    'list: relation filter (exists)',
    'list: eager load to-one',
    'list: eager load to-many',
    'list: eager load many-to-many with pivot values',
    'insert: bulk returns ids in order',
    'update: each record its own changes, updated_at moves',
    'update: guard on null field',
    'delete: returns the ids really removed',
    'delete: restrict is a foreign_key_violation DriverFailure',
    'delete: cascade and set null follow the relations',
    'existingIds',
    'transaction: rollback leaves nothing',
    'transaction: reads inside see the uncommitted writes',
    'pivots: attach is idempotent and answers what it inserted',
    'pivots: read',
    'pivots: detach',
    'pivots: update',
    'parseId rejects malformed ids',
    'translateError: unique violation names the field',
  ],
  skipped: {
    'streams: every row of a query': 'the SQL driver has no streams capability (Driver.streams is undefined; exports read keyset batches through list cursor pages instead, lib/service/reads/row-batches.ts)',
  },
};

runDriverContract('sql (PostgreSQL)', factory, conformance);
