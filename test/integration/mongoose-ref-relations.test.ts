import { expect } from 'chai';
import ExcelJS from 'exceljs';
import express from 'express';
import request from 'supertest';
import mongoose from 'mongoose';
import { DataTypes, Sequelize } from 'sequelize';
import { createRestApi, type ResourceDeclaration } from '../../lib';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * A mongoose `ref` path is a belongs-to relation named like the path (`writer: {type: ObjectId,
 * ref: 'Writer'}` gives relation `writer` whose key is the `writer` field): unloaded it is the id,
 * eager-loaded the related record takes its place (as with populate); the same holds on PostgreSQL
 * for a declared belongs-to whose key is its own name. A RELATIONS entry that
 * cannot be resolved stops the start-up with the rule that finds relations, on both drivers.
 */
type Build = () => Promise<{ models: { Writer: unknown; Novel: unknown }; novelRelations: ResourceDeclaration['relations']; absent: string | number; close(): Promise<void> }>;

/** mongo: the relation comes from the ref path; sql: the same rule through a declared belongs-to whose key is its own name. */
const BUILD: Record<string, Build> = {
  mongo: async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/mongoose_ref_relations';
    const conn = await mongoose.createConnection(uri.toString()).asPromise();
    await conn.dropDatabase();
    const { ObjectId } = mongoose.Schema.Types;
    const Writer = conn.model('Writer', new mongoose.Schema({ name: String }));
    const Novel = conn.model('Novel', new mongoose.Schema({ title: String, writer: { type: ObjectId, ref: 'Writer' } }));
    return { models: { Writer, Novel }, novelRelations: undefined, absent: '0123456789abcdef01234567', close: () => conn.close() };
  },
  sql: async () => {
    const s = new Sequelize((await sharedPostgres()).uri, { logging: false });
    const Writer = s.define('Writer', { name: DataTypes.STRING }, { tableName: 'rr_writers', timestamps: false });
    const Novel = s.define('Novel', { title: DataTypes.STRING, writer: { type: DataTypes.INTEGER, references: { model: 'rr_writers', key: 'id' } } }, { tableName: 'rr_novels', timestamps: false });
    await Novel.drop();
    await s.sync({ force: true });
    return { models: { Writer, Novel }, novelRelations: { writer: { kind: 'belongsTo', target: 'writer', foreignKey: 'writer' } }, absent: 999999, close: () => s.close() };
  },
};

for (const [driver, build] of Object.entries(BUILD)) describe(`a belongs-to named like its key (mongoose ref path; declared on sql) (${driver})`, function () {
  this.timeout(60_000);
  let app: express.Express;
  let close: () => Promise<void>;
  let absent: string | number;
  const ids: Record<string, string> = {};
  const get = (path: string, query: Record<string, unknown> = {}) =>
    request(app).get(`/api${path}`).query(Object.fromEntries(Object.entries(query).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])));
  const create = async (resource: string, body: object) => {
    const res = await request(app).post(`/api/${resource}`).send(body);
    expect(res.status, res.text).to.equal(200);
    return res.body.model.id as string;
  };

  before(async () => {
    const built = await build();
    close = built.close;
    absent = built.absent;
    const { Writer, Novel } = built.models;
    const api = createRestApi()
      .register({ name: 'writers', MODEL: 'writer', model: Writer, fillable: ['name'], RELATIONS: ['novels'], relations: { novels: { kind: 'hasMany', target: 'novel', foreignKey: 'writer' } } })
      .register({ name: 'novels', MODEL: 'novel', model: Novel, fillable: ['title', 'writer'], RELATIONS: ['writer'], ...(built.novelRelations ? { relations: built.novelRelations } : {}) });
    app = express();
    app.use(express.json());
    app.use('/api', api.router());
    ids.ann = await create('writers', { name: 'Ann' });
    ids.bob = await create('writers', { name: 'Bob' });
    ids.first = await create('novels', { title: 'First', writer: ids.ann });
    ids.second = await create('novels', { title: 'Second', writer: ids.bob });
    ids.third = await create('novels', { title: 'Third', writer: ids.ann });
    ids.orphan = await create('novels', { title: 'Anonymous' });
  });
  after(async () => close());

  it('unloaded, the ref path is the id; relations=writer puts the writer in its place', async () => {
    const plain = await get(`/novels/${ids.first}`);
    expect(plain.status, plain.text).to.equal(200);
    expect(plain.body.writer).to.equal(ids.ann);
    const res = await get('/novels', { relations: 'writer', orderby: [{ title: 'asc' }] });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.map((n: { title: string; writer: unknown }) => [n.title, n.writer])).to.deep.equal([
      ['Anonymous', null],
      ['First', { id: ids.ann, name: 'Ann' }],
      ['Second', { id: ids.bob, name: 'Bob' }],
      ['Third', { id: ids.ann, name: 'Ann' }],
    ]);
  });

  it('show with relations=writer and a column selection', async () => {
    const res = await get(`/novels/${ids.second}`, { relations: 'writer:name', select: 'title' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.deep.equal({ id: ids.second, title: 'Second', writer: { id: ids.bob, name: 'Bob' } });
  });

  it('filters on writer.name, and on the key with attr', async () => {
    const byName = await get('/novels', { oper: { writer: { and: ['name|=|Ann'] } }, orderby: [{ title: 'asc' }] });
    expect(byName.status, byName.text).to.equal(200);
    expect(byName.body.data.map((n: { title: string }) => n.title)).to.deep.equal(['First', 'Third']);
    const byKey = await get('/novels', { attr: { writer: ids.bob } });
    expect(byKey.body.data.map((n: { title: string }) => n.title)).to.deep.equal(['Second']);
    const sorted = await get('/novels', { orderby: [{ 'writer.name': 'desc' }, { title: 'asc' }], oper: { and: ['writer|not null'] } });
    expect(sorted.status, sorted.text).to.equal(200);
    expect(sorted.body.data.map((n: { title: string }) => n.title)).to.deep.equal(['Second', 'First', 'Third']);
  });

  it('a cursor page ordered by the key still reads the key when the relation is loaded', async () => {
    const titles: string[] = [];
    let cursor: string | null = null;
    do {
      const pagination: Record<string, unknown> = { infinity: true, pageSize: 2 };
      if (cursor) pagination.cursor = cursor;
      const res = await get('/novels', { relations: 'writer', orderby: [{ writer: 'asc' }], pagination, oper: { and: ['writer|not null'] } });
      expect(res.status, res.text).to.equal(200);
      for (const n of res.body.data) {
        expect(n.writer).to.be.an('object');
        titles.push(n.title);
      }
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(titles.sort()).to.deep.equal(['First', 'Second', 'Third']);
  });

  it('the other side declared with foreignKey "writer" loads the novels', async () => {
    const res = await get(`/writers/${ids.ann}`, { relations: 'novels:title' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.novels.map((n: { title: string }) => n.title).sort()).to.deep.equal(['First', 'Third']);
  });

  it('an export with the key and a field of the relation: the key column holds the id', async () => {
    const res = await request(app)
      .get('/api/novels/export/excel')
      .query({ columns: 'title,writer,writer.name', orderby: JSON.stringify([{ title: 'asc' }]) })
      .buffer(true)
      .parse((stream, done) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(res.status).to.equal(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.body as ArrayBuffer);
    const rows: unknown[][] = [];
    workbook.worksheets[0].eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
    expect(rows.slice(0, 3)).to.deep.equal([
      ['title', 'writer', 'writer.name'],
      ['Anonymous'],
      ['First', ids.ann, 'Ann'],
    ]);
  });

  it('writes check the reference, and deleting a referenced writer is restricted (the belongs-to default)', async () => {
    const bad = await request(app).post('/api/novels').send({ title: 'Ghost', writer: absent });
    expect(bad.status, bad.text).to.equal(422);
    expect(bad.body.errors).to.have.property('writer');
    const del = await request(app).delete(`/api/writers/${ids.bob}`);
    expect(del.status, del.text).to.equal(409);
  });
});

describe('RELATIONS that cannot be resolved: the start-up error states the rule', function () {
  this.timeout(30_000);
  const start = (decls: ResourceDeclaration[]) => () => {
    const api = createRestApi();
    for (const d of decls) api.register(d);
    api.router();
  };

  describe('mongo', () => {
    let conn: mongoose.Connection;
    const m: Record<string, unknown> = {};
    before(async () => {
      const uri = new URL((await sharedMongo()).uri);
      uri.pathname = '/mongoose_ref_checks';
      conn = await mongoose.createConnection(uri.toString()).asPromise();
      const { ObjectId } = mongoose.Schema.Types;
      m.Tag = conn.model('Tag', new mongoose.Schema({ label: String }));
      m.Post = conn.model('Post', new mongoose.Schema({ title: String, tags: [{ type: ObjectId, ref: 'Tag' }], publisher: { type: ObjectId, ref: 'Publisher' } }));
    });
    after(async () => conn.close());
    const decls = (RELATIONS: string[]): ResourceDeclaration[] => [
      { name: 'tags', MODEL: 'tag', model: m.Tag, fillable: ['label'] },
      { name: 'posts', MODEL: 'post', model: m.Post, fillable: ['title', 'tags', 'publisher'], RELATIONS },
    ];

    it('a relation found nowhere: names the ref and <name>_id rules and the way to declare it', () => {
      expect(start(decls(['author']))).to.throw(/Resource post: RELATIONS: relation "author" cannot be resolved\./);
      expect(start(decls(['author']))).to.throw(/ref: '<Model>', named "author" .* or "author_id"/);
      expect(start(decls(['author']))).to.throw(/relations: \{author: \{kind, target, foreignKey \| pivot\}\}/);
    });

    it('a ref to a model that is not a resource says so', () => {
      expect(start(decls(['publisher']))).to.throw(/the path publisher refers to mongoose model Publisher, which is not registered as a resource/);
    });

    it('an array of refs is refused as a relation, pointing to a pivot', () => {
      expect(start(decls(['tags']))).to.throw(/the path tags is an array of refs to Tag; an array of ids is not a relation .*belongsToMany/);
    });

    it('an array of refs declared belongsToMany without a pivot asks for the pivot', () => {
      const declared = decls(['tags']).map((d) => (d.name === 'posts' ? { ...d, relations: { tags: { kind: 'belongsToMany' as const, target: 'tag' } } } : d));
      expect(start(declared)).to.throw(/Resource post: relations\.tags\.pivot: a belongsToMany goes through a pivot table or collection: declare pivot: \{table, parentKey, relatedKey\}/);
    });

    it('without RELATIONS naming it, an array of refs stays a plain array field', () => {
      expect(start(decls([]))).to.not.throw();
    });
  });

  describe('sql', () => {
    let s: Sequelize;
    const m: Record<string, unknown> = {};
    before(async () => {
      s = new Sequelize((await sharedPostgres()).uri, { logging: false });
      const Shelf = s.define('Shelf', { label: DataTypes.STRING }, { tableName: 'rr_shelves', underscored: true });
      const Hidden = s.define('Hidden', { label: DataTypes.STRING }, { tableName: 'rr_hidden', underscored: true });
      const Item = s.define('Item', { title: DataTypes.STRING }, { tableName: 'rr_items', underscored: true });
      Item.belongsTo(Shelf, { as: 'shelf', foreignKey: 'shelf_id' });
      Item.belongsTo(Hidden, { as: 'hidden', foreignKey: 'hidden_id' });
      Object.assign(m, { Shelf, Item });
    });
    after(async () => s.close());
    const decls = (RELATIONS: string[]): ResourceDeclaration[] => [
      { name: 'shelves', MODEL: 'shelf', model: m.Shelf, fillable: ['label'] },
      { name: 'items', MODEL: 'item', model: m.Item, fillable: ['title', 'shelf_id'], RELATIONS },
    ];

    it('an association is found; an unknown name states that associations are detected by their alias', () => {
      expect(start(decls(['shelf']))).to.not.throw();
      expect(start(decls(['box']))).to.throw(/Resource item: RELATIONS: relation "box" cannot be resolved\. On a Sequelize model, associations are detected .* named by its alias `as`/);
      expect(start(decls(['box']))).to.throw(/Relations found on this model: shelf\./);
    });

    it('an association to a model that is not a resource says so', () => {
      expect(start(decls(['hidden']))).to.throw(/the association hidden targets Sequelize model Hidden, which is not registered as a resource/);
    });
  });
});
