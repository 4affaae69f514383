import { expect } from 'chai';
import supertest from 'supertest';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { freshPostgresDatabase, sharedMongo } from '../support/databases';

/**
 * What may differ between the drivers' answers: ids (24-hex strings on MongoDB, integers on
 * PostgreSQL), the moments records were written, and cursors (which carry ids). Everything else,
 * spacing included, must be the same bytes.
 */
function normalize(text: string): string {
  return text
    .replace(/"next_cursor":"[A-Za-z0-9_-]+"/g, '"next_cursor":CURSOR')
    .replace(/"([a-z_]*id)":("[0-9a-f]{24}"|\d+)/g, '"$1":ID')
    .replace(/\[("[0-9a-f]{24}"|\d+)(,("[0-9a-f]{24}"|\d+))*\]/g, '[IDS]')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z/g, 'TS');
}

const ORDER = JSON.stringify([{ name: 'asc' }]);

/**
 * Issue 44: the two drivers' JSON was one space apart (PostgreSQL's json_agg writes `}, {` between
 * the elements of a to-many relation on the JSON-read path). The example shop, seeded the same on
 * both, answers byte-identical lists, pages, shows, trees, aggregates, relation routes and errors.
 */
describe('the same JSON bytes on MongoDB and PostgreSQL', function () {
  this.timeout(120_000);
  let mongo: ExampleApp;
  let sql: ExampleApp;
  let dropPostgres: () => Promise<void>;

  before(async function () {
    this.timeout(180_000);
    const mongoUri = new URL((await sharedMongo()).uri);
    mongoUri.pathname = `/driver_bytes_${process.pid}`;
    const pg = await freshPostgresDatabase('driver_bytes');
    dropPostgres = pg.drop;
    mongo = await createExampleApp({ driver: 'mongo', mongoUri: mongoUri.toString(), seed: true, adminToken: 'bytes-admin' });
    sql = await createExampleApp({ driver: 'sql', postgresUri: pg.uri, seed: true, adminToken: 'bytes-admin' });
  });
  after(async () => {
    await mongo?.close();
    await sql?.close();
    await dropPostgres?.();
  });

  const get = (shop: ExampleApp, path: string, query: Record<string, string> = {}) => supertest(shop.app).get(`/api/v1${path}`).query(query).set('Authorization', 'Bearer bytes-admin');

  /** The same request on both drivers: status and normalized body bytes equal; paths may name a record by `{first}`. */
  async function same(path: string, query: Record<string, string> = {}): Promise<string> {
    const answers = [];
    for (const shop of [mongo, sql]) {
      const first = (await get(shop, '/products/first', { orderby: ORDER })).body.data.id as string | number;
      const res = await get(shop, path.replace('{first}', String(first)), query);
      answers.push({ status: res.status, text: normalize(res.text) });
    }
    expect(answers[1].status, `${path} status`).to.equal(answers[0].status);
    expect(answers[1].text, `${path} ${JSON.stringify(query)}`).to.equal(answers[0].text);
    return answers[0].text;
  }

  it('lists: plain, with every kind of relation on an offset page, a cursor page, /first', async () => {
    await same('/products', { select: 'name,price', orderby: ORDER });
    const page = await same('/products', { relations: 'category,reviews,tags', orderby: ORDER, pagination: JSON.stringify({ page: 1, pageSize: 4 }) });
    // the page does hold to-many relations with several elements (where the space was)
    expect(page).to.match(/"tags":\[\{[^\]]*\},\{/);
    await same('/products', { relations: 'reviews,tags', orderby: ORDER, pagination: JSON.stringify({ infinity: true, pageSize: 3 }) });
    await same('/products/first', { relations: 'category,tags', orderby: ORDER });
    await same('/users', { relations: 'reviews', orderby: ORDER });
  });

  it('a show with its relations, a tree, an aggregate, a relation route', async () => {
    await same('/products/{first}', { relations: 'category,reviews,tags' });
    await same('/categories', { hierarchy: 'true', orderby: ORDER, select: 'name' });
    await same('/products/aggregate', { group_by: JSON.stringify(['status']), aggregate: JSON.stringify({ count: '*', sum: ['price'], avg: ['price'] }) });
    await same('/products/{first}/tags', { orderby: ORDER });
  });

  it('errors', async () => {
    await same('/products', { oper: JSON.stringify({ and: ['colour|=|red'] }) });
    await same('/products', { soft_delete: 'with' });
    await same('/nothing-here');
  });
});
