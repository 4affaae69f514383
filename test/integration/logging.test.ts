import { expect } from 'chai';
import { Writable } from 'node:stream';
import request from 'supertest';
import { asAdmin } from '../support/as-admin';
import winston from 'winston';
import { createExampleApp, type ExampleApp } from '../../example-app/app';
import { sharedMongo, sharedPostgres } from '../support/databases';

/** A winston logger whose lines land in an array, to assert on what the library logs. */
function memoryLogger(): { logger: winston.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const logger = winston.createLogger({ level: 'debug', format: winston.format.json(), transports: [new winston.transports.Stream({ stream })] });
  return { logger, lines };
}

for (const driver of ['mongo', 'sql'] as const) {
  describe(`logging [${driver}]`, function () {
    this.timeout(60_000);
    let example: ExampleApp;
    const { logger, lines } = memoryLogger();

    before(async () => {
      const previous = process.env.LOG_QUERY;
      process.env.LOG_QUERY = 'true';
      try {
        if (driver === 'mongo') {
          const uri = new URL((await sharedMongo()).uri);
          uri.pathname = '/logging_test';
          example = await createExampleApp({ driver, mongoUri: uri.toString(), logger });
        } else {
          example = await createExampleApp({ driver, postgresUri: (await sharedPostgres()).uri, logger });
        }
      } finally {
        if (previous === undefined) delete process.env.LOG_QUERY;
        else process.env.LOG_QUERY = previous;
      }
      await example.reset();
    });

    after(async () => {
      await example.reset();
      await example.close();
    });

    it('LOG_QUERY=true writes one query-log line per controller action, with the compiled query', async () => {
      lines.length = 0;
      await asAdmin(example)
        .get('/api/v1/products')
        .query({ oper: JSON.stringify({ and: ['price|>=|1'] }), relations: 'category' })
        .expect(200);
      const queryLines = lines.filter((l) => l.channel === 'query');
      expect(queryLines).to.have.length(1);
      expect(queryLines[0].message).to.equal('product.index');
      const compiled = JSON.stringify(queryLines[0].compiled);
      expect(compiled).to.match(driver === 'mongo' ? /\$match/ : /SELECT/);
    });

    it('records the full database error on the database channel while the client sees only the translation', async () => {
      await asAdmin(example).post('/api/v1/tags').send({ name: 'dup' }).expect(200);
      lines.length = 0;
      const res = await asAdmin(example).post('/api/v1/tags').send({ name: 'dup' }).expect(409);
      expect(JSON.stringify(res.body)).to.not.match(/E11000|duplicate key|violates/);
      const dbLines = lines.filter((l) => l.channel === 'database');
      expect(dbLines).to.have.length(1);
      expect(JSON.stringify(dbLines[0])).to.match(/E11000|duplicate key/);
      // the client's mistake: a warning without a stack
      expect(dbLines[0].level).to.equal('warn');
      expect(JSON.stringify(dbLines[0])).to.not.contain('"stack"');
    });

    it('writes one access line per request with method, path, status, duration; never headers or the query string', async () => {
      lines.length = 0;
      await asAdmin(example).get('/api/v1/products').query({ attr: JSON.stringify({ name: 'secret-value' }) }).expect(200);
      await request(example.app).get('/api/v1/products').set('Authorization', 'Bearer top-secret').expect(401);
      const access = lines.filter((l) => l.channel === 'access');
      expect(access).to.have.length(2);
      expect(access[0]).to.include({ method: 'GET', path: '/api/v1/products', status: 200, route: 'products.index' });
      expect(access[0].duration_ms).to.be.a('number');
      expect(JSON.stringify(lines)).to.not.contain('top-secret');
      expect(JSON.stringify(lines)).to.not.contain(example.info.adminToken);
      expect(JSON.stringify(access)).to.not.contain('secret-value');
    });

    it('query-log lines carry their duration', async () => {
      lines.length = 0;
      await asAdmin(example).get('/api/v1/products').expect(200);
      const query = lines.find((l) => l.channel === 'query');
      expect(query?.duration_ms).to.be.a('number');
    });
  });
}
