import { expect } from 'chai';
import { createSqlDriver } from '../../../drivers/sql';
import type { Driver } from '../../../lib/driver';
import { BadRequestError } from '../../../lib/errors';
import type { AggregateQuery } from '../../../lib/query/aggregate-ast';
import { freshPostgresDatabase } from '../../support/databases';
import { defineModels, describeAll, type DbModels } from './db-models';

/**
 * A zone the parser lets through but the server's tz database does not know (decision 84: Node
 * and PostgreSQL may disagree) fails the statement with 22023: the driver answers it with a 400
 * naming the zone, never a 500. The query is built by hand, past the parser's own check.
 */
describe('sql driver: a bucket zone PostgreSQL does not know', function () {
  this.timeout(120_000);
  let db: DbModels;
  let driver: Driver & { aggregate(query: AggregateQuery): Promise<unknown> };
  let database: { uri: string; drop(): Promise<void> };

  before(async () => {
    database = await freshPostgresDatabase('sql_zone');
    db = defineModels(database.uri, () => undefined);
    await db.sequelize.sync({ force: true });
    driver = createSqlDriver(db.sequelize) as typeof driver;
    describeAll(driver, db.declarations);
    // a row to truncate: over no rows PostgreSQL never reads the zone
    await driver.transaction((tx) => driver.insert('product', [{ name: 'Alpha', sku: 'A1', price: 1, stock: 1 }], tx));
  });
  after(async () => {
    await db.sequelize.close();
    await database.drop();
  });

  const query = (tz: string): AggregateQuery => ({
    model: 'product',
    filter: null,
    groups: [{ name: 'created_at', relations: [], field: 'created_at', bucket: { unit: 'month', tz, weekStart: 'monday' } }],
    measures: [{ fn: 'count', field: null }],
    order: [{ kind: 'group', index: 0, direction: 'asc' }],
    page: { kind: 'offset', page: 1, size: 10 },
    having: null,
  });

  it('is a BadRequestError on group_by naming the zone', async () => {
    const err = await driver.aggregate(query('Mars/Olympus')).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(BadRequestError);
    expect((err as BadRequestError).message).to.include('"Mars/Olympus"');
  });

  it('a zone it knows answers', async () => {
    const result = (await driver.aggregate(query('Europe/Berlin'))) as { total: number };
    expect(result.total).to.equal(1);
  });
});
