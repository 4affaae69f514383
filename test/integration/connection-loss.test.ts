import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import mongoose from 'mongoose';
import { DataTypes, Sequelize } from 'sequelize';
import { createRestApi } from '../../lib';
import { startMongo } from '../../lib/testing/start-mongo';
import { startPostgres } from '../../lib/testing/start-postgres';

/** A database that goes away answers 503 connection_error, reads and writes alike, with no driver text. */
describe('connection loss', function () {
  this.timeout(60_000);

  function expectUnavailable(res: request.Response): void {
    expect(res.status).to.equal(503);
    expect(res.body).to.deep.equal({ message: 'The database is unavailable. Try again later.', type: 'connection_error', status: 503 });
  }

  it('PostgreSQL stopped under a running app: 503 connection_error', async () => {
    const pg = await startPostgres();
    const sequelize = new Sequelize(pg.uri, { logging: false });
    try {
      const Thing = sequelize.define('Thing', { name: DataTypes.STRING }, { tableName: 'things', underscored: true });
      await sequelize.sync();
      const app = express();
      app.use('/api', createRestApi().register({ name: 'things', MODEL: 'thing', model: Thing, fillable: ['name'] }).router());
      await request(app).get('/api/things').expect(200);
      await pg.stop();
      expectUnavailable(await request(app).get('/api/things'));
      expectUnavailable(await request(app).post('/api/things').send({ name: 'x' }));
    } finally {
      await sequelize.close();
    }
  });

  it('MongoDB stopped under a running app: 503 connection_error', async () => {
    const mongo = await startMongo();
    const uri = new URL(mongo.uri);
    uri.pathname = '/connection_loss';
    const connection = await mongoose.createConnection(uri.toString(), { serverSelectionTimeoutMS: 1000 }).asPromise();
    try {
      const Thing = connection.model('Thing', new mongoose.Schema({ name: String }, { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } }));
      const app = express();
      app.use('/api', createRestApi().register({ name: 'things', MODEL: 'thing', model: Thing, fillable: ['name'] }).router());
      await request(app).get('/api/things').expect(200);
      await mongo.stop();
      expectUnavailable(await request(app).get('/api/things'));
      expectUnavailable(await request(app).post('/api/things').send({ name: 'x' }));
    } finally {
      await connection.close(true);
    }
  });
});
