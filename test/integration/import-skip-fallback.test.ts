import { expect } from 'chai';
import type { Sequelize } from 'sequelize';
import { asAdmin } from '../support/as-admin';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedPostgres } from '../support/databases';

const REFUSED = 'refused by the database';

/**
 * Decision 82, `on_error=skip`: a chunk's write refused for a reason that names no row (here a
 * CHECK only PostgreSQL knows) is halved until the refused rows are found: a few writes per bad
 * row, never one per row of the chunk, and the good rows are committed.
 */
describe('imports: a refusal that names no row costs a few writes per bad row (PostgreSQL)', function () {
  this.timeout(120_000);
  let example: ExampleApp;
  let sequelize: Sequelize;
  const statements: string[] = [];

  before(async () => {
    example = await createExampleApp({ driver: 'sql', postgresUri: (await sharedPostgres()).uri });
    await example.reset();
    sequelize = (example.api.registry.entry('product').declaration.model as { sequelize: Sequelize }).sequelize;
    await sequelize.query(`ALTER TABLE products ADD CONSTRAINT import_fallback_rule CHECK (name <> '${REFUSED}')`);
  });
  after(async () => {
    (sequelize as unknown as { options: { logging: unknown } }).options.logging = false;
    await sequelize?.query('ALTER TABLE products DROP CONSTRAINT IF EXISTS import_fallback_rule');
    await example?.reset();
    await example?.close();
  });

  it('one bad row in a chunk of 1,000: at most 2 x log2(1,000) + 1 writes of the chunk, the 999 others stored', async () => {
    const stamp = Date.now();
    const lines = ['name,sku,price', ...Array.from({ length: 1000 }, (_, i) => `${i === 500 ? REFUSED : `Fallback ${i}`},fb-${stamp}-${i},1`)];
    const http = asAdmin(example);
    await http.get('/api/v1/tags/first').expect(200); // the token lookup is cached: only the import is counted
    (sequelize as unknown as { options: { logging: unknown } }).options.logging = (sql: string) => statements.push(sql);
    const res = await http.post('/api/v1/products/import').query({ on_error: 'skip' }).set('Content-Type', 'text/csv').send(lines.join('\n') + '\n');
    (sequelize as unknown as { options: { logging: unknown } }).options.logging = false;
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ rows: 1000, created: 999, skipped: 1 });
    expect(res.body.errors).to.have.length(1);
    expect(res.body.errors[0]).to.include({ row: 502, code: 'bad_request' });
    // a write of a chunk is one transaction (pipelined INSERTs of its parts): counted by its COMMIT or ROLLBACK
    const ends = statements.filter((s) => /\b(COMMIT|ROLLBACK)\b/.test(s));
    expect(ends.length, statements.map((s) => s.slice(0, 80)).join('\n')).to.be.at.most(2 * Math.ceil(Math.log2(1000)) + 1);
    const [{ n }] = (await sequelize.query(`SELECT count(*)::int AS n FROM products WHERE sku LIKE 'fb-${stamp}-%'`, { type: 'SELECT' })) as Array<{ n: number }>;
    expect(n).to.equal(999);
  });
});
