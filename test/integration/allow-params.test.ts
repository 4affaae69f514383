import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import mongoose from 'mongoose';
import { createRestApi } from '../../lib';
import { sharedMongo } from '../support/databases';

/**
 * Decision 64 in an application of its own: `allowParams` API-wide and per resource, the app's
 * routes mounted after the API under the same prefix still reached, `api.notFound()` last, and
 * bracket notation with the app's query parser switched off altogether.
 */
describe('allowParams, app routes beside the API, api.notFound()', function () {
  this.timeout(60_000);
  let app: express.Express;
  let connection: mongoose.Connection;

  before(async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/allow_params_test';
    connection = await mongoose.createConnection(uri.toString()).asPromise();
    const stamps = { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } };
    const Note = connection.model('Note', new mongoose.Schema({ title: String, status: String }, stamps));
    const Label = connection.model('Label', new mongoose.Schema({ name: String }, stamps));
    await Note.deleteMany({});
    await Label.deleteMany({});
    await Note.create([{ title: 'a', status: 'open' }, { title: 'b', status: 'done' }]);
    await Label.create([{ name: 'x' }]);
    const api = createRestApi({ allowParams: ['token'] })
      .register({ name: 'notes', MODEL: 'note', model: Note, fillable: ['title', 'status'] }, { allowParams: ['sig'] })
      .register({ name: 'labels', MODEL: 'label', model: Label, fillable: ['name'] });
    app = express();
    app.set('query parser', false);
    app.use('/api', api.router());
    app.get('/api/health', (_req, res) => void res.json({ ok: true }));
    app.use('/api', api.notFound());
  });

  after(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  it('API-wide names pass everywhere, a resource\'s own only on its routes', async () => {
    const notes = await request(app).get('/api/notes?token=t&sig=s&attr[status]=open');
    expect(notes.status, notes.text).to.equal(200);
    expect(notes.body.data.map((n: { title: string }) => n.title)).to.deep.equal(['a']);
    expect((await request(app).get('/api/labels?token=t')).status).to.equal(200);
    const refused = await request(app).get('/api/labels?sig=s');
    expect(refused.status).to.equal(400);
    expect(refused.body.message).to.include('Unknown parameter "sig"').and.include('token.');
  });

  it('a write body may carry the app\'s own parameters (decision 1); any other key that is no field is a 422 unknown_field (decision 77)', async () => {
    const stored = await request(app).post('/api/notes').send({ title: 'c', token: 't', sig: 's' });
    expect(stored.status, stored.text).to.equal(200);
    const refused = await request(app).post('/api/labels').send({ name: 'y', sig: 's' });
    expect(refused.status, refused.text).to.equal(422);
    expect(refused.body.type).to.equal('unknown_field');
    expect(refused.body.errors).to.have.all.keys('sig');
    expect((await request(app).delete(`/api/notes/${stored.body.model.id}`)).status).to.equal(200);
  });

  it('bracket notation works with the app\'s query parser switched off', async () => {
    const res = await request(app).get('/api/notes?oper%5Bor%5D%5B0%5D=status%7C%3D%7Cdone&select[]=title');
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.have.length(1);
    expect(res.body.data[0]).to.have.keys('id', 'title');
  });

  it('the app\'s own route after the API is reached; anything else gets api.notFound()\'s JSON 404', async () => {
    expect((await request(app).get('/api/health')).body).to.deep.equal({ ok: true });
    const missing = await request(app).get('/api/nothing/here');
    expect(missing.status).to.equal(404);
    expect(missing.body).to.deep.equal({ message: 'No route for GET /api/nothing/here.', type: 'not_found', status: 404 });
    const underResource = await request(app).post('/api/notes/1/x');
    expect(underResource.status).to.equal(404);
    expect(underResource.body.type).to.equal('not_found');
  });
});
