import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import mongoose from 'mongoose';
import { DataTypes, Sequelize } from 'sequelize';
import { createRestApi } from '../../lib';
import { sharedMongo, sharedPostgres } from '../support/databases';

/**
 * Trashed records are hidden behind every relation kind, eager-loaded and as a filter, on both
 * drivers: belongsTo (book.author), hasOne (author.profile), hasMany (author.books) and
 * belongsToMany (book.labels), each target soft-deletable.
 */
type Build = () => Promise<{ models: Record<string, unknown>; pivot: string; links(): Promise<number>; close(): Promise<void> }>;

const BUILD: Record<string, Build> = {
  mongo: async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/soft_delete_relations';
    const c = await mongoose.createConnection(uri.toString()).asPromise();
    const ts = { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } };
    const deleted_at = { type: Date, default: null };
    const Author = c.model('Author', new mongoose.Schema({ name: String, deleted_at }, ts));
    const Profile = c.model('Profile', new mongoose.Schema({ bio: String, author_id: { type: mongoose.Schema.Types.ObjectId, ref: 'Author' }, deleted_at }, ts));
    const Book = c.model('Book', new mongoose.Schema({ title: String, author_id: { type: mongoose.Schema.Types.ObjectId, ref: 'Author' }, deleted_at }, ts));
    const Label = c.model('Label', new mongoose.Schema({ text: String, deleted_at }, ts));
    c.model('BookLabel', new mongoose.Schema({ book_id: mongoose.Schema.Types.ObjectId, label_id: mongoose.Schema.Types.ObjectId }), 'book_label');
    await c.dropDatabase();
    return { models: { Author, Profile, Book, Label, BookLabel: c.models.BookLabel }, pivot: 'book_label', links: async () => (await c.collection('book_label').countDocuments()) as number, close: () => c.close() };
  },
  sql: async () => {
    const s = new Sequelize((await sharedPostgres()).uri, { logging: false });
    const o = { underscored: true, paranoid: true, createdAt: 'created_at', updatedAt: 'updated_at', deletedAt: 'deleted_at' };
    const Author = s.define('Author', { name: DataTypes.STRING }, { ...o, tableName: 'sd_authors' });
    const Profile = s.define('Profile', { bio: DataTypes.STRING }, { ...o, tableName: 'sd_profiles' });
    const Book = s.define('Book', { title: DataTypes.STRING }, { ...o, tableName: 'sd_books' });
    const Label = s.define('Label', { text: DataTypes.STRING }, { ...o, tableName: 'sd_labels' });
    const BookLabel = s.define('BookLabel', { book_id: DataTypes.INTEGER, label_id: DataTypes.INTEGER }, { tableName: 'sd_book_label', underscored: true, timestamps: false });
    Author.hasOne(Profile, { as: 'profile', foreignKey: 'author_id' });
    Profile.belongsTo(Author, { as: 'author', foreignKey: 'author_id' });
    Author.hasMany(Book, { as: 'books', foreignKey: 'author_id' });
    Book.belongsTo(Author, { as: 'author', foreignKey: 'author_id' });
    Book.belongsToMany(Label, { as: 'labels', through: BookLabel, foreignKey: 'book_id', otherKey: 'label_id' });
    Label.belongsToMany(Book, { as: 'books', through: BookLabel, foreignKey: 'label_id', otherKey: 'book_id' });
    await s.sync({ force: true });
    return { models: { Author, Profile, Book, Label, BookLabel }, pivot: 'sd_book_label', links: () => BookLabel.count(), close: () => s.close() };
  },
};

for (const [driver, build] of Object.entries(BUILD)) {
  describe(`soft delete behind every relation kind (${driver})`, function () {
    this.timeout(60_000);
    let app: express.Express;
    let close: () => Promise<void>;
    let links: () => Promise<number>;
    const ids: Record<string, string | number> = {};
    const api = (path: string, query: Record<string, unknown> = {}) =>
      request(app).get(`/api${path}`).query(Object.fromEntries(Object.entries(query).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])));
    const create = async (resource: string, body: object) => {
      const res = await request(app).post(`/api/${resource}`).send(body);
      expect(res.status, res.text).to.equal(200);
      return res.body.model.id as string | number;
    };

    before(async () => {
      const built = await build();
      close = built.close;
      links = built.links;
      const m = built.models;
      const pivot = { table: built.pivot, parentKey: 'book_id', relatedKey: 'label_id' };
      const restApi = createRestApi()
        .register({ name: 'authors', MODEL: 'author', model: m.Author, fillable: ['name'], softDelete: true, RELATIONS: ['profile', 'books'], relations: { profile: { kind: 'hasOne', target: 'profile', foreignKey: 'author_id' }, books: { kind: 'hasMany', target: 'book', foreignKey: 'author_id' } } })
        .register({ name: 'profiles', MODEL: 'profile', model: m.Profile, fillable: ['bio', 'author_id'], softDelete: true, relations: { author: { kind: 'belongsTo', target: 'author', foreignKey: 'author_id', onDelete: 'cascade' } } })
        .register(
          { name: 'books', MODEL: 'book', model: m.Book, fillable: ['title', 'author_id'], softDelete: true, RELATIONS: ['author', 'labels'], relations: { author: { kind: 'belongsTo', target: 'author', foreignKey: 'author_id', onDelete: 'cascade' }, labels: { kind: 'belongsToMany', target: 'label', pivot } } },
          { relationRoutes: { manyToMany: { labels: { relationship: 'labels', pivotModel: built.pivot, parentKey: 'book_id', relatedKey: 'label_id', mutation: { dataKey: 'labels' } } } } },
        )
        .register({ name: 'labels', MODEL: 'label', model: m.Label, fillable: ['text'], softDelete: true });
      app = express();
      app.use('/api', restApi.router());

      ids.live = await create('authors', { name: 'Live' });
      ids.gone = await create('authors', { name: 'Gone' });
      ids.liveProfile = await create('profiles', { bio: 'live', author_id: ids.live });
      ids.book = await create('books', { title: 'By live', author_id: ids.live });
      ids.orphan = await create('books', { title: 'By gone', author_id: ids.gone });
      ids.trashedBook = await create('books', { title: 'Trashed', author_id: ids.live });
      ids.label = await create('labels', { text: 'kept' });
      ids.trashedLabel = await create('labels', { text: 'trashed' });
      const BookLabel = m.BookLabel as { create(doc: object): Promise<unknown> };
      const id = (v: string | number) => (driver === 'mongo' ? new mongoose.Types.ObjectId(String(v)) : v);
      await BookLabel.create({ book_id: id(ids.book), label_id: id(ids.label) });
      await BookLabel.create({ book_id: id(ids.book), label_id: id(ids.trashedLabel) });
      for (const [resource, id2] of [['authors', ids.gone], ['books', ids.trashedBook], ['labels', ids.trashedLabel]] as const) {
        expect((await request(app).delete(`/api/${resource}/${id2}`)).status).to.equal(200);
      }
      const trashedProfile = await create('profiles', { bio: 'trashed', author_id: ids.gone });
      expect((await request(app).delete(`/api/profiles/${trashedProfile}`)).status).to.equal(200);
    });
    after(async () => close());

    it('belongsTo: a trashed parent loads as null and does not match a filter', async () => {
      const orphan = await api(`/books/${ids.orphan}`, { relations: 'author' });
      expect(orphan.body.author).to.equal(null);
      const filtered = await api('/books', { oper: { author: { and: ['name|=|Gone'] } } });
      expect(filtered.body.data).to.deep.equal([]);
    });

    it('hasOne: a trashed profile loads as null and does not match', async () => {
      const gone = await api(`/authors/${ids.gone}`, { relations: 'profile', soft_delete: 'with' });
      expect(gone.body.profile).to.equal(null);
      const live = await api(`/authors/${ids.live}`, { relations: 'profile' });
      expect(live.body.profile.bio).to.equal('live');
      const filtered = await api('/authors', { oper: { profile: { and: ['bio|=|trashed'] } }, soft_delete: 'with' });
      expect(filtered.body.data).to.deep.equal([]);
    });

    it('hasMany: trashed children are not loaded and do not match', async () => {
      const live = await api(`/authors/${ids.live}`, { relations: 'books' });
      expect(live.body.books.map((b: { id: unknown }) => String(b.id))).to.deep.equal([String(ids.book)]);
      const filtered = await api('/authors', { oper: { books: { and: ['title|=|Trashed'] } } });
      expect(filtered.body.data).to.deep.equal([]);
    });

    it('belongsToMany: trashed related records are not loaded and do not match', async () => {
      const book = await api(`/books/${ids.book}`, { relations: 'labels' });
      expect(book.body.labels.map((l: { text: string }) => l.text)).to.deep.equal(['kept']);
      const filtered = await api('/books', { oper: { labels: { and: ['text|=|trashed'] } } });
      expect(filtered.body.data).to.deep.equal([]);
    });

    // the relation routes' links: a trashed parent or related record is never linked (on PostgreSQL the
    // checks are conditions of the one link statement: compile-link-guard.ts)
    it('attach, sync and toggle under a trashed parent are a 404 that writes nothing', async () => {
      const before = await links();
      for (const scenario of ['bulk_attach', 'sync', 'toggle']) {
        const res = await request(app).post(`/api/books/${ids.trashedBook}/labels/attach`).query({ _scenario: scenario }).send({ labels: [ids.label] });
        expect(res.status, `${scenario}: ${res.text}`).to.equal(404);
        expect(res.body.message).to.contain(`No book found with id ${ids.trashedBook}`);
      }
      const single = await request(app).post(`/api/books/${ids.trashedBook}/labels/attach`).send({ label_id: ids.label });
      expect(single.status, single.text).to.equal(404);
      expect(await links()).to.equal(before);
    });

    it('a trashed related record is left out of attach, sync and toggle (a 207 naming it) and never linked', async () => {
      const fresh = await create('books', { title: 'Fresh', author_id: ids.live });
      const labels = async () => (await api(`/books/${fresh}/labels`)).body.data.map((l: { text: string }) => l.text).sort();
      const attach = await request(app).post(`/api/books/${fresh}/labels/attach`).query({ _scenario: 'bulk_attach' }).send({ labels: [ids.label, ids.trashedLabel] });
      expect(attach.status, attach.text).to.equal(207);
      expect(attach.body.attached).to.deep.equal([ids.label]);
      expect(attach.body.error.not_found_ids).to.deep.equal([ids.trashedLabel]);
      expect(await labels()).to.deep.equal(['kept']);
      const sync = await request(app).post(`/api/books/${fresh}/labels/attach`).query({ _scenario: 'sync' }).send({ labels: [ids.trashedLabel] });
      expect(sync.status, sync.text).to.equal(207);
      expect([sync.body.attached, sync.body.detached, sync.body.error.not_found_ids]).to.deep.equal([[], [ids.label], [ids.trashedLabel]]);
      expect(await labels()).to.deep.equal([]);
      const single = await request(app).post(`/api/books/${fresh}/labels/attach`).send({ label_id: ids.trashedLabel });
      expect(single.status, single.text).to.equal(404);
      const toggle = await request(app).post(`/api/books/${fresh}/labels/attach`).query({ _scenario: 'toggle' }).send({ labels: [ids.label, ids.trashedLabel] });
      expect(toggle.status, toggle.text).to.equal(207);
      expect(await labels()).to.deep.equal(['kept']);
      // the trashed label, restored, is visible again: linked by the same request
      expect((await request(app).post(`/api/labels/${ids.trashedLabel}/restore`)).status).to.be.oneOf([200, 204]);
      const again = await request(app).post(`/api/books/${fresh}/labels/attach`).query({ _scenario: 'sync' }).send({ labels: [ids.label, ids.trashedLabel] });
      expect(again.status, again.text).to.equal(200);
      expect(await labels()).to.deep.equal(['kept', 'trashed']);
      expect((await request(app).delete(`/api/labels/${ids.trashedLabel}`)).status).to.equal(200);
    });
  });
}
