import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import mongoose from 'mongoose';
import { createRestApi } from '../../lib';
import { sharedMongo } from '../support/databases';

/**
 * Decision 77 in an application of its own: `unknownFields: 'ignore'` keeps the lenient behaviour
 * for the resource that declares it (unknown keys dropped, the known ones written), while a
 * resource without it refuses them; envelope keys are checked either way.
 */
describe("unknownFields: 'ignore' (decision 77)", function () {
  this.timeout(60_000);
  let app: express.Express;
  let connection: mongoose.Connection;

  before(async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/unknown_fields_ignore_test';
    connection = await mongoose.createConnection(uri.toString()).asPromise();
    const stamps = { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } };
    const Note = connection.model('Note', new mongoose.Schema({ title: String }, stamps));
    const Label = connection.model('Label', new mongoose.Schema({ name: String }, stamps));
    await Note.deleteMany({});
    await Label.deleteMany({});
    const api = createRestApi()
      .register({ name: 'notes', MODEL: 'note', model: Note, fillable: ['title'], unknownFields: 'ignore' })
      .register({ name: 'labels', MODEL: 'label', model: Label, fillable: ['name'] });
    app = express();
    app.use('/api', api.router());
  });

  after(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  it('the lenient resource drops unknown keys and writes the rest, on store, bulk store and update', async () => {
    const one = await request(app).post('/api/notes').send({ title: 'a', colour: 'red' });
    expect(one.status, one.text).to.equal(200);
    expect(one.body.model).to.include({ title: 'a' }).and.not.have.property('colour');
    const bulk = await request(app).post('/api/notes').send({ note: [{ title: 'b', x: 1 }] });
    expect(bulk.status, bulk.text).to.equal(200);
    const updated = await request(app).patch(`/api/notes/${one.body.model.id}`).send({ title: 'c', ttle: 'd' });
    expect(updated.status, updated.text).to.equal(200);
    expect(updated.body.model.title).to.equal('c');
  });

  it('envelope keys are still checked, and _relation is still a 400', async () => {
    const beside = await request(app).post('/api/notes').send({ note: [{ title: 'e' }], extra: 1 });
    expect(beside.status, beside.text).to.equal(422);
    expect(beside.body.errors).to.have.all.keys('extra');
    expect((await request(app).post('/api/notes').send({ title: 'f', _relation: 'x' })).status).to.equal(400);
  });

  it('a resource without it refuses unknown keys (the default), nothing written', async () => {
    const res = await request(app).post('/api/labels').send({ name: 'l', colour: 'red' });
    expect(res.status, res.text).to.equal(422);
    expect(res.body).to.include({ type: 'unknown_field', status: 422 });
    expect(res.body.errors).to.deep.equal({ colour: ['The colour field is unknown.'] });
    expect((await request(app).get('/api/labels')).body.data).to.deep.equal([]);
  });
});
