import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import mongoose from 'mongoose';
import { DataTypes, Sequelize } from 'sequelize';
import { createRestApi, ForbiddenError, type ResourceHooks } from '../../lib';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Per-resource hooks with the request context, on both drivers: "authors see only their posts"
 * (scope, applied to lists, show, relation loads and writes' existence checks), "stamp owner_id on
 * create" (beforeCreate), an after hook that reshapes output and a before hook that refuses.
 */
const hooks: ResourceHooks = {
  scope: (ctx) => ({ owner: String(ctx.locals.author ?? 'nobody') }),
  beforeCreate: (records, ctx) => records.map((r) => ({ ...r, owner: String(ctx.locals.author) })),
  afterShow: (row) => ({ ...row, shown: true }),
  beforeDelete: (ids, ctx) => {
    if (ctx.locals.author === 'guest') throw new ForbiddenError();
  },
};

type Build = () => Promise<{ model: unknown; close(): Promise<void> }>;

const DRIVERS: Record<string, Build> = {
  mongo: async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/hooks_test';
    const connection = await mongoose.createConnection(uri.toString()).asPromise();
    const Post = connection.model('Post', new mongoose.Schema({ title: String, owner: String }, { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } }));
    await Post.deleteMany({});
    return { model: Post, close: async () => (await connection.dropDatabase(), await connection.close()) };
  },
  sql: async () => {
    const sequelize = new Sequelize((await sharedPostgres()).uri, { logging: false });
    const Post = sequelize.define('Post', { title: DataTypes.STRING, owner: DataTypes.STRING }, { tableName: 'hook_posts', underscored: true });
    await sequelize.sync({ force: true });
    return { model: Post, close: async () => (await sequelize.getQueryInterface().dropTable('hook_posts'), await sequelize.close()) };
  },
};

for (const [driver, build] of Object.entries(DRIVERS)) {
  describe(`resource hooks (${driver})`, function () {
    this.timeout(60_000);
    let app: express.Express;
    let close: () => Promise<void>;

    before(async () => {
      const built = await build();
      close = built.close;
      // the application's own authentication: here the author comes from a header into the context
      const api = createRestApi({ context: (req) => ({ locals: { author: req.get('x-author') } }) }).register({ name: 'posts', MODEL: 'post', model: built.model, fillable: ['title'], hooks });
      app = express();
      app.use('/api', api.router());
    });

    after(async () => close());

    const as = (author: string) => ({
      get: (path: string) => request(app).get(`/api${path}`).set('x-author', author),
      post: (path: string, body: object) => request(app).post(`/api${path}`).set('x-author', author).send(body),
      patch: (path: string, body: object) => request(app).patch(`/api${path}`).set('x-author', author).send(body),
      del: (path: string) => request(app).delete(`/api${path}`).set('x-author', author),
    });

    it('beforeCreate stamps the owner; the scope narrows lists, show and writes to the caller', async () => {
      const created = await as('ann').post('/posts', { title: 'Ann 1' });
      expect(created.status, created.text).to.equal(200);
      expect(created.body.model.owner).to.equal('ann');
      await as('bob').post('/posts', { title: 'Bob 1' });

      const annList = await as('ann').get('/posts');
      expect(annList.body.data.map((p: { title: string }) => p.title)).to.deep.equal(['Ann 1']);
      const bobList = await as('bob').get('/posts');
      expect(bobList.body.data.map((p: { title: string }) => p.title)).to.deep.equal(['Bob 1']);

      const id = created.body.model.id;
      const shown = await as('ann').get(`/posts/${id}`);
      expect(shown.status).to.equal(200);
      expect(shown.body.shown).to.equal(true);
      expect((await as('bob').get(`/posts/${id}`)).status).to.equal(404);
      expect((await as('bob').patch(`/posts/${id}`, { title: 'hijack' })).status).to.equal(404);
      expect((await as('bob').del(`/posts/${id}`)).status).to.equal(404);
      expect((await as('ann').get(`/posts/${id}`)).body.title).to.equal('Ann 1');
    });

    it('a before hook that throws a library error answers with it', async () => {
      const created = await as('guest').post('/posts', { title: 'Guest post' });
      const res = await as('guest').del(`/posts/${created.body.model.id}`);
      expect(res.status).to.equal(403);
      expect(res.body).to.include({ type: 'forbidden' });
      expect((await as('guest').get(`/posts/${created.body.model.id}`)).status).to.equal(200);
    });
  });
}
