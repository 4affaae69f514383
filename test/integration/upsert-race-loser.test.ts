import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import mongoose from 'mongoose';
import { DataTypes, Sequelize } from 'sequelize';
import { createRestApi } from '../../lib';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Decision 79, the race made certain: a `beforeCreate` hook stores the record an upsert is about
 * to create (as a concurrent request would, between the upsert's read and its write), so the
 * upsert's insert meets the record and updates it. It sets only the fields its record gives:
 * those it does not give keep the stored values, never the model's defaults. Both drivers, a
 * single and a composite match key.
 */
type Store = (record: Record<string, unknown>) => Promise<void>;
type Build = () => Promise<{ model: unknown; store: Store; close(): Promise<void> }>;

const DRIVERS: Record<string, Build> = {
  mongo: async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/upsert_race_loser';
    const connection = await mongoose.createConnection(uri.toString()).asPromise();
    const schema = new mongoose.Schema({ code: { type: String, required: true, unique: true }, maker: { type: String, required: true }, ref: { type: Number, required: true }, name: String, color: { type: String, default: 'grey' }, size: { type: Number, default: 1 } }, { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' }, versionKey: false });
    schema.index({ maker: 1, ref: 1 }, { unique: true });
    const Widget = connection.model('Widget', schema);
    await Widget.init();
    await Widget.deleteMany({});
    return { model: Widget, store: async (record) => void (await Widget.create(record as never)), close: async () => (await connection.dropDatabase(), await connection.close()) };
  },
  sql: async () => {
    const sequelize = new Sequelize((await sharedPostgres()).uri, { logging: false });
    const Widget = sequelize.define('Widget', { code: { type: DataTypes.STRING, allowNull: false, unique: true }, maker: { type: DataTypes.STRING, allowNull: false }, ref: { type: DataTypes.INTEGER, allowNull: false }, name: DataTypes.STRING, color: { type: DataTypes.STRING, allowNull: false, defaultValue: 'grey' }, size: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 } }, { tableName: 'upsert_widgets', underscored: true, indexes: [{ unique: true, fields: ['maker', 'ref'] }] });
    await sequelize.sync({ force: true });
    return { model: Widget, store: async (record) => void (await Widget.create(record)), close: async () => (await sequelize.getQueryInterface().dropTable('upsert_widgets'), await sequelize.close()) };
  },
};

for (const [driver, build] of Object.entries(DRIVERS)) {
  describe(`upsert: the loser of a race for a new key (${driver})`, function () {
    this.timeout(60_000);
    let app: express.Express;
    let close: () => Promise<void>;
    // records the hook stores before the upsert writes, by code
    const racing = new Map<string, Record<string, unknown>>();

    before(async () => {
      const built = await build();
      close = built.close;
      const api = createRestApi().register({
        name: 'widgets', MODEL: 'widget', model: built.model, fillable: ['code', 'maker', 'ref', 'name', 'color', 'size'], upsertKeys: [['code'], ['maker', 'ref']],
        hooks: {
          beforeCreate: async (records) => {
            for (const record of records) {
              const winner = racing.get(String(record.code));
              if (winner) await built.store(winner);
            }
          },
        },
      });
      app = express();
      app.use(express.json());
      app.use('/api', api.router());
    });
    after(async () => close());

    const upsert = (body: object) => request(app).post('/api/widgets/upsert').send(body);
    const show = async (code: string) => (await request(app).get('/api/widgets').query({ attr: JSON.stringify({ code }) })).body.data as Array<Record<string, unknown>>;

    it('updates only the fields its record gives; the others keep the winner\'s values, not the defaults', async () => {
      racing.set('W-1', { code: 'W-1', maker: 'acme', ref: 1, name: 'Winner', color: 'red', size: 3 });
      racing.set('W-2', { code: 'W-2', maker: 'acme', ref: 2, name: 'Same', color: 'blue', size: 5 });
      const res = await upsert({ match: ['code'], widget: [
        { code: 'W-1', maker: 'acme', ref: 1, name: 'Loser' },
        { code: 'W-2', maker: 'acme', ref: 2, name: 'Same' },
        { code: 'W-3', maker: 'acme', ref: 3, name: 'Fresh', size: 2 },
      ] });
      expect(res.status, res.text).to.equal(200);
      // a concurrent loser reports updated or unchanged, never a second created (MongoDB's upsert
      // cannot tell an equal record from a changed one: it answers updated where PostgreSQL leaves it)
      const actions = res.body.models.map((m: { action: string }) => m.action);
      expect([actions[0], actions[2]]).to.deep.equal(['updated', 'created']);
      expect(actions[1]).to.equal(driver === 'sql' ? 'unchanged' : 'updated');
      expect(await show('W-1')).to.have.length(1);
      expect((await show('W-1'))[0]).to.include({ name: 'Loser', color: 'red', size: 3 });
      expect((await show('W-2'))[0]).to.include({ name: 'Same', color: 'blue', size: 5 });
      expect((await show('W-3'))[0]).to.include({ name: 'Fresh', color: 'grey', size: 2 });
    });

    it('by a composite match key, records of one chunk giving different fields', async () => {
      racing.set('W-4', { code: 'W-4', maker: 'bolt', ref: 4, name: 'Winner 4', color: 'red', size: 7 });
      racing.set('W-5', { code: 'W-5', maker: 'bolt', ref: 5, name: 'Winner 5', color: 'green', size: 8 });
      const res = await upsert({ match: ['maker', 'ref'], widget: [
        { code: 'W-4', maker: 'bolt', ref: 4, size: 9 },
        { code: 'W-5', maker: 'bolt', ref: 5, color: 'black' },
      ] });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.models.map((m: { action: string }) => m.action)).to.deep.equal(['updated', 'updated']);
      expect((await show('W-4'))[0]).to.include({ name: 'Winner 4', color: 'red', size: 9 });
      expect((await show('W-5'))[0]).to.include({ name: 'Winner 5', color: 'black', size: 8 });
    });
  });
}
