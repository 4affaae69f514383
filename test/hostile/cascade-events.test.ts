import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import mongoose from 'mongoose';
import { DataTypes, Sequelize } from 'sequelize';
import { createRestApi } from '../../lib';
import { sharedMongo, sharedPostgres } from '../support/databases';
import { ChangeStream, listen } from '../support/change-stream';

/**
 * Decision 76: the writes a delete makes on its own behalf emit change events after the commit,
 * on both drivers: `deleted` (the record as it was) for each record a cascade rule deletes, at
 * any depth and also where no stream watches the level between, and `updated` (the record after)
 * for each record whose key a set-null rule cleared. A delete refused by a restrict rule further
 * down rolls everything back and emits nothing. Models: authors; books (cascade with the author);
 * pages (cascade with the book); notes (set null with the author); stamps (restrict a page).
 */
type Models = { Author: unknown; Book: unknown; Page: unknown; Note: unknown; Stamp: unknown };
type Build = () => Promise<{ models: Models; close(): Promise<void> }>;

const BUILD: Record<string, Build> = {
  mongo: async () => {
    const uri = new URL((await sharedMongo()).uri);
    uri.pathname = '/cascade_events';
    const c = await mongoose.createConnection(uri.toString()).asPromise();
    const ts = { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' }, versionKey: false as const };
    const ref = (model: string) => ({ type: mongoose.Schema.Types.ObjectId, ref: model, default: null });
    const Author = c.model('CeAuthor', new mongoose.Schema({ name: String }, { ...ts, collection: 'ce_authors' }));
    const Book = c.model('CeBook', new mongoose.Schema({ title: String, author_id: ref('CeAuthor') }, { ...ts, collection: 'ce_books' }));
    const Page = c.model('CePage', new mongoose.Schema({ number: Number, book_id: ref('CeBook') }, { ...ts, collection: 'ce_pages' }));
    const Note = c.model('CeNote', new mongoose.Schema({ text: String, author_id: ref('CeAuthor') }, { ...ts, collection: 'ce_notes' }));
    const Stamp = c.model('CeStamp', new mongoose.Schema({ mark: String, page_id: ref('CePage') }, { ...ts, collection: 'ce_stamps' }));
    await c.dropDatabase();
    return { models: { Author, Book, Page, Note, Stamp }, close: () => c.close() };
  },
  sql: async () => {
    const s = new Sequelize((await sharedPostgres()).uri, { logging: false });
    const o = { underscored: true, createdAt: 'created_at', updatedAt: 'updated_at' };
    const fk = (table: string, onDelete: 'CASCADE' | 'SET NULL' | 'RESTRICT') => ({ type: DataTypes.INTEGER, allowNull: true, references: { model: table, key: 'id' }, onDelete });
    const Author = s.define('CeAuthor', { name: DataTypes.STRING }, { ...o, tableName: 'ce_authors' });
    const Book = s.define('CeBook', { title: DataTypes.STRING, author_id: fk('ce_authors', 'CASCADE') }, { ...o, tableName: 'ce_books' });
    const Page = s.define('CePage', { number: DataTypes.INTEGER, book_id: fk('ce_books', 'CASCADE') }, { ...o, tableName: 'ce_pages' });
    const Note = s.define('CeNote', { text: DataTypes.STRING, author_id: fk('ce_authors', 'SET NULL') }, { ...o, tableName: 'ce_notes' });
    const Stamp = s.define('CeStamp', { mark: DataTypes.STRING, page_id: fk('ce_pages', 'RESTRICT') }, { ...o, tableName: 'ce_stamps' });
    await s.query('DROP TABLE IF EXISTS "ce_stamps", "ce_notes", "ce_pages", "ce_books", "ce_authors" CASCADE');
    await s.sync();
    return { models: { Author, Book, Page, Note, Stamp }, close: () => s.close() };
  },
};

for (const [driver, build] of Object.entries(BUILD)) {
  describe(`hostile: a delete's own writes reach the change feed (decision 76) [${driver}]`, function () {
    this.timeout(60_000);
    let app: express.Express;
    let server: { url: string; close(): Promise<void> };
    let close: () => Promise<void>;
    let streams: ChangeStream[] = [];
    const feed = async (resource: string) => {
      const stream = await ChangeStream.open(`${server.url}/api/${resource}/changes`);
      expect(stream.status).to.equal(200);
      streams.push(stream);
      return stream;
    };
    const create = async (resource: string, body: object) => {
      const res = await request(app).post(`/api/${resource}`).send(body);
      expect(res.status, res.text).to.equal(200);
      return res.body.model as { id: string | number } & Record<string, unknown>;
    };
    const exists = async (resource: string, id: unknown) => (await request(app).get(`/api/${resource}/${id}`)).status === 200;
    /** An author with two books of two pages each, a note, and a note of someone else. */
    const library = async () => {
      const author = await create('authors', { name: 'A' });
      const other = await create('authors', { name: 'Other' });
      const books = [await create('books', { title: 'B1', author_id: author.id }), await create('books', { title: 'B2', author_id: author.id })];
      const pages = [];
      for (const book of books) for (const number of [1, 2]) pages.push(await create('pages', { number, book_id: book.id }));
      const note = await create('notes', { text: 'mine', author_id: author.id });
      const foreign = await create('notes', { text: 'theirs', author_id: other.id });
      return { author, other, books, pages, note, foreign };
    };

    before(async () => {
      const built = await build();
      close = built.close;
      const m = built.models;
      const belongs = (target: string, foreignKey: string, onDelete: 'cascade' | 'setNull' | 'restrict') => ({ kind: 'belongsTo' as const, target, foreignKey, onDelete });
      const api = createRestApi()
        .register({ name: 'authors', MODEL: 'author', model: m.Author as never, fillable: ['name'], relations: { books: { kind: 'hasMany', target: 'book', foreignKey: 'author_id' }, notes: { kind: 'hasMany', target: 'note', foreignKey: 'author_id' } } })
        .register({ name: 'books', MODEL: 'book', model: m.Book as never, fillable: ['title', 'author_id'], relations: { author: belongs('author', 'author_id', 'cascade') } })
        .register({ name: 'pages', MODEL: 'page', model: m.Page as never, fillable: ['number', 'book_id'], relations: { book: belongs('book', 'book_id', 'cascade') } })
        .register({ name: 'notes', MODEL: 'note', model: m.Note as never, fillable: ['text', 'author_id'], relations: { author: belongs('author', 'author_id', 'setNull') } })
        .register({ name: 'stamps', MODEL: 'stamp', model: m.Stamp as never, fillable: ['mark', 'page_id'], relations: { page: belongs('page', 'page_id', 'restrict') } });
      app = express();
      app.use('/api', api.router());
      server = await listen(app);
    });
    afterEach(() => {
      for (const stream of streams) stream.close();
      streams = [];
    });
    after(async () => {
      await server.close();
      await close();
    });

    it('deleting an author: books and pages deleted by the cascade each get `deleted` with the record as it was; its note `updated` with author_id null; nothing for the other author\'s note', async () => {
      const { author, books, pages, note, foreign } = await library();
      const [bookFeed, pageFeed, noteFeed, authorFeed] = [await feed('books'), await feed('pages'), await feed('notes'), await feed('authors')];
      const res = await request(app).delete(`/api/authors/${author.id}`);
      expect(res.status, res.text).to.equal(200);
      const [gone] = await authorFeed.take(1);
      expect([gone.type, gone.data.id]).to.deep.equal(['deleted', author.id]);
      const bookEvents = await bookFeed.take(2);
      expect(bookEvents.map((e) => [e.type, e.data.id, e.data.model!.title, e.data.model!.author_id])).to.have.deep.members(books.map((b) => ['deleted', b.id, b.title, author.id]));
      const pageEvents = await pageFeed.take(4);
      expect(pageEvents.map((e) => [e.type, e.data.id])).to.have.deep.members(pages.map((p) => ['deleted', p.id]));
      expect(pageEvents.every((e) => e.data.model!.book_id !== null)).to.equal(true);
      const [nulled] = await noteFeed.take(1);
      expect([nulled.type, nulled.data.id, nulled.data.model!.author_id, nulled.data.model!.text]).to.deep.equal(['updated', note.id, null, 'mine']);
      await noteFeed.none(300);
      await bookFeed.none(0);
      // the database agrees
      for (const b of books) expect(await exists('books', b.id)).to.equal(false);
      for (const p of pages) expect(await exists('pages', p.id)).to.equal(false);
      expect((await request(app).get(`/api/notes/${note.id}`)).body.author_id).to.equal(null);
      expect((await request(app).get(`/api/notes/${foreign.id}`)).body.author_id).to.not.equal(null);
    });

    it('a stream on pages alone hears the pages two levels down (no stream on books)', async () => {
      const { author, pages } = await library();
      const pageFeed = await feed('pages');
      await request(app).delete(`/api/authors/${author.id}`).expect(200);
      const events = await pageFeed.take(4);
      expect(events.map((e) => [e.type, e.data.id])).to.have.deep.members(pages.map((p) => ['deleted', p.id]));
      await pageFeed.none(300);
    });

    it('DELETE /batch of two authors: every cascaded record and every cleared note, once each', async () => {
      const a = await library();
      const b = await library();
      const [bookFeed, noteFeed] = [await feed('books'), await feed('notes')];
      const res = await request(app).delete('/api/authors/batch').send({ ids: [a.author.id, b.author.id] });
      expect(res.status, res.text).to.equal(200);
      const bookEvents = await bookFeed.take(4);
      expect(bookEvents.map((e) => e.data.id)).to.have.members([...a.books, ...b.books].map((x) => x.id));
      const noteEvents = await noteFeed.take(2);
      expect(noteEvents.map((e) => [e.type, e.data.id, e.data.model!.author_id])).to.have.deep.members([['updated', a.note.id, null], ['updated', b.note.id, null]]);
      await bookFeed.none(300);
      await noteFeed.none(0);
    });

    it('a restrict rule two levels down refuses the delete: 409, nothing deleted, nothing cleared, no event', async () => {
      const { author, books, pages, note } = await library();
      await create('stamps', { mark: 'held', page_id: pages[3].id });
      const [bookFeed, pageFeed, noteFeed, authorFeed] = [await feed('books'), await feed('pages'), await feed('notes'), await feed('authors')];
      const res = await request(app).delete(`/api/authors/${author.id}`);
      expect(res.status, res.text).to.equal(409);
      expect(res.body.type).to.equal('foreign_key_violation');
      for (const stream of [bookFeed, pageFeed, noteFeed, authorFeed]) await stream.none(100);
      expect(await exists('authors', author.id)).to.equal(true);
      for (const b of books) expect(await exists('books', b.id)).to.equal(true);
      for (const p of pages) expect(await exists('pages', p.id)).to.equal(true);
      expect((await request(app).get(`/api/notes/${note.id}`)).body.author_id).to.equal(author.id);
    });

    it('a delete that reaches no open stream reads nothing more and answers as before', async () => {
      const { author, books } = await library();
      const stampFeed = await feed('stamps');
      const res = await request(app).delete(`/api/authors/${author.id}`);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.model.name).to.equal('A');
      for (const b of books) expect(await exists('books', b.id)).to.equal(false);
      await stampFeed.none(200);
    });
  });
}
