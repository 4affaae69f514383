import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import mongoose from 'mongoose';
import { DataTypes, Sequelize, type ModelStatic, type Model } from 'sequelize';
import { object, string, number } from 'yup';
import { createRestApi } from '../../lib';
import { sharedMongo, sharedPostgres } from '../support/databases';

/** One application, some resources on MongoDB and others on PostgreSQL, chosen per model. */
describe('a driver per model', function () {
  this.timeout(60_000);
  let connection: mongoose.Connection;
  let sequelize: Sequelize;
  let app: express.Express;
  let Widget: ModelStatic<Model>;
  let Part: ModelStatic<Model>;

  before(async () => {
    const mongo = await sharedMongo();
    const pg = await sharedPostgres();
    const uri = new URL(mongo.uri);
    uri.pathname = '/mixed_drivers';
    connection = await mongoose.createConnection(uri.toString()).asPromise();
    const Note = connection.model(
      'Note',
      new mongoose.Schema(
        { title: { type: String, required: true }, stars: { type: Number, default: 0 } },
        { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } },
      ),
    );
    await Note.deleteMany({});

    sequelize = new Sequelize(pg.uri, { logging: false });
    Widget = sequelize.define('Widget', { name: { type: DataTypes.STRING, allowNull: false } }, { tableName: 'mixed_widgets', underscored: true });
    Part = sequelize.define('Part', { label: { type: DataTypes.STRING, allowNull: false } }, { tableName: 'mixed_parts', underscored: true });
    Widget.hasMany(Part, { as: 'parts', foreignKey: 'widget_id', onDelete: 'RESTRICT' });
    Part.belongsTo(Widget, { as: 'widget', foreignKey: 'widget_id', onDelete: 'RESTRICT' });
    await sequelize.sync({ force: true });

    const api = createRestApi()
      .register({
        name: 'notes',
        MODEL: 'note',
        model: Note,
        fillable: ['title', 'stars'],
        validation: { create: object({ title: string().required(), stars: number().integer().min(0) }) },
      })
      .register({ name: 'widgets', MODEL: 'widget', model: Widget, fillable: ['name'], RELATIONS: ['parts'] })
      .register({ name: 'parts', MODEL: 'part', model: Part, fillable: ['label', 'widget_id'], RELATIONS: ['widget'] });
    app = express();
    app.use('/api', api.router());
  });

  after(async () => {
    await connection.dropDatabase();
    await connection.close();
    await sequelize.getQueryInterface().dropTable('mixed_parts');
    await sequelize.getQueryInterface().dropTable('mixed_widgets');
    await sequelize.close();
  });

  it('stores and lists a MongoDB resource with ObjectId ids', async () => {
    const res = await request(app).post('/api/notes').send({ title: 'from mongo', stars: 3 }).expect(200);
    expect(res.body.model.id).to.match(/^[0-9a-f]{24}$/);
    const list = await request(app).get('/api/notes').query({ oper: JSON.stringify({ and: ['stars|>=|3'] }) }).expect(200);
    expect(list.body.data.map((n: { title: string }) => n.title)).to.deep.equal(['from mongo']);
  });

  it('stores, relates and lists PostgreSQL resources with integer ids in the same app', async () => {
    const widget = await request(app).post('/api/widgets').send({ name: 'gear box' }).expect(200);
    expect(widget.body.model.id).to.be.a('number');
    await request(app)
      .post('/api/parts')
      .send({ part: [{ label: 'cog', widget_id: widget.body.model.id }, { label: 'axle', widget_id: widget.body.model.id }] })
      .expect(200);
    const list = await request(app).get('/api/widgets').query({ relations: 'parts:label', oper: JSON.stringify({ parts: { and: ['label|=|cog'] } }) }).expect(200);
    expect(list.body.data).to.have.length(1);
    expect(list.body.data[0].parts.map((p: { label: string }) => p.label).sort()).to.deep.equal(['axle', 'cog']);
  });

  it('keeps each driver\'s rules: deleting a referenced widget is a 409 from PostgreSQL\'s foreign key', async () => {
    const widget = await request(app).post('/api/widgets').send({ name: 'held' }).expect(200);
    await request(app).post('/api/parts').send({ label: 'pin', widget_id: widget.body.model.id }).expect(200);
    const res = await request(app).delete(`/api/widgets/${widget.body.model.id}`).expect(409);
    expect(res.body.type).to.equal('foreign_key_violation');
  });

  it('answers 404 for an id of the other driver\'s shape', async () => {
    await request(app).get('/api/widgets/507f1f77bcf86cd799439011').expect(404);
    await request(app).get('/api/notes/42').expect(404);
  });

  it('refuses at start-up a relation between models of different drivers', () => {
    const Stray = connection.model('Stray', new mongoose.Schema({ widget_id: Number }));
    const api = createRestApi()
      .register({ name: 'widgets', MODEL: 'widget', model: Widget, fillable: ['name'] })
      .register({
        name: 'strays',
        MODEL: 'stray',
        model: Stray,
        fillable: ['widget_id'],
        RELATIONS: ['widget'],
        relations: { widget: { kind: 'belongsTo', target: 'widget', foreignKey: 'widget_id' } },
      });
    expect(() => api.router()).to.throw(/different drivers/);
  });
});
