import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import mongoose from 'mongoose';
import { DataTypes, Sequelize } from 'sequelize';
import { createRestApi } from '../../lib';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Decision 81's requireIfMatch (428) on a resource that declares it, and decision 79: a match the caller's scope hides, or a trashed one, is a 409 naming the index and
 * the keys, and the record is neither changed nor shown; on both drivers.
 */
type Build = () => Promise<{ model: unknown; close(): Promise<void> }>;

const DRIVERS: Record<string, Build> = {
  mongo: async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/upsert_conflicts';
    const connection = await mongoose.createConnection(uri.toString()).asPromise();
    const schema = new mongoose.Schema({ code: { type: String, required: true, unique: true }, name: String, owner: String, version: { type: Number, default: 1, integer: true }, deleted_at: { type: Date, default: null } }, { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' }, versionKey: false });
    const Gadget = connection.model('Gadget', schema);
    await Gadget.init();
    await Gadget.deleteMany({});
    return { model: Gadget, close: async () => (await connection.dropDatabase(), await connection.close()) };
  },
  sql: async () => {
    const sequelize = new Sequelize((await sharedPostgres()).uri, { logging: false });
    const Gadget = sequelize.define('Gadget', { code: { type: DataTypes.STRING, allowNull: false, unique: true }, name: DataTypes.STRING, owner: DataTypes.STRING, version: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 } }, { tableName: 'upsert_gadgets', underscored: true, paranoid: true, deletedAt: 'deleted_at' });
    await sequelize.sync({ force: true });
    return { model: Gadget, close: async () => (await sequelize.getQueryInterface().dropTable('upsert_gadgets'), await sequelize.close()) };
  },
};

for (const [driver, build] of Object.entries(DRIVERS)) {
  describe(`upsert: hidden and trashed matches (${driver})`, function () {
    this.timeout(60_000);
    let app: express.Express;
    let close: () => Promise<void>;

    before(async () => {
      const built = await build();
      close = built.close;
      const api = createRestApi({ context: (req) => ({ locals: { who: req.get('x-who') ?? 'anyone' } }) }).register({
        name: 'gadgets', MODEL: 'gadget', model: built.model, fillable: ['code', 'name', 'owner'], softDelete: true, upsertKeys: [['code']], versionField: 'version', requireIfMatch: true,
        hooks: { scope: (ctx) => ({ owner: String(ctx.locals.who) }) },
      });
      app = express();
      app.use(express.json());
      app.use('/api', api.router());
    });
    after(async () => close());

    const upsert = (who: string, body: object) => request(app).post('/api/gadgets/upsert').set('x-who', who).send(body);

    it('a match the scope hides is a 409 naming the index and keys; nothing of it is shown or changed', async () => {
      expect((await upsert('ann', { gadget: { code: 'G-1', name: 'Ann\'s', owner: 'ann' } })).status).to.equal(200);
      const res = await upsert('bob', { gadget: [{ code: 'G-2', name: 'Bob\'s', owner: 'bob' }, { code: 'G-1', name: 'Taken over', owner: 'bob' }] });
      expect(res.status, res.text).to.equal(409);
      expect(res.body.type).to.equal('conflict');
      expect(res.body.error.keys).to.deep.equal(['code']);
      expect(res.body.error.index).to.be.a('string');
      expect(res.text).to.not.contain('Ann');
      const mine = await request(app).get('/api/gadgets').set('x-who', 'ann');
      expect(mine.body.data.map((g: { name: string }) => g.name)).to.deep.equal(['Ann\'s']);
      // all or nothing: Bob's new record was not created either
      expect((await request(app).get('/api/gadgets').set('x-who', 'bob')).body.data).to.deep.equal([]);
    });

    it('a trashed match is a 409 too', async () => {
      const made = await upsert('cid', { gadget: { code: 'G-3', name: 'Soon gone', owner: 'cid' } });
      expect((await request(app).delete(`/api/gadgets/${made.body.models[0].model.id}`).set('x-who', 'cid').set('If-Match', '"1"')).status).to.equal(200);
      const res = await upsert('cid', { gadget: { code: 'G-3', name: 'Back', owner: 'cid' } });
      expect(res.status, res.text).to.equal(409);
    });

    it('requireIfMatch: PUT, PATCH or DELETE without If-Match is a 428; with it the write runs and the version moves', async () => {
      const made = await upsert('dee', { gadget: { code: 'G-9', name: 'Versioned', owner: 'dee' } });
      const id = made.body.models[0].model.id;
      expect(made.body.models[0].model.version).to.equal(1);
      const refused = await request(app).patch(`/api/gadgets/${id}`).set('x-who', 'dee').send({ name: 'No tag' });
      expect(refused.status, refused.text).to.equal(428);
      expect(refused.body.type).to.equal('precondition_required');
      expect((await request(app).delete(`/api/gadgets/${id}`).set('x-who', 'dee')).status).to.equal(428);
      const ok = await request(app).put(`/api/gadgets/${id}`).set('x-who', 'dee').set('If-Match', '"1"').send({ name: 'Tagged' });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.headers.etag).to.equal('"2"');
      // an upsert that updates it moves the version too
      const again = await upsert('dee', { gadget: { code: 'G-9', name: 'Upserted' } });
      expect(again.body.models[0]).to.deep.include({ action: 'updated' });
      expect(again.body.models[0].model.version).to.equal(3);
    });
  });
}
