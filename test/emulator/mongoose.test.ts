import { expect } from 'chai';
import mongoose, { Schema, type Connection } from 'mongoose';
import { startMongo, type MongoHandle } from '../../lib/testing/start-mongo';
import { freshDbName } from './helpers';

describe('emulator conformance: mongoose', () => {
  let handle: MongoHandle;
  let conn: Connection;

  const authorSchema = new Schema({ name: { type: String, required: true } });
  const bookSchema = new Schema(
    {
      title: String,
      sku: { type: String, unique: true },
      author: { type: Schema.Types.ObjectId, ref: 'Author' },
      price: Number,
    },
    { timestamps: true },
  );

  before(async function () {
    this.timeout(60_000);
    handle = await startMongo();
    conn = mongoose.createConnection(handle.uri, { dbName: freshDbName('mongoose') });
    await conn.asPromise();
    conn.model('Author', authorSchema);
    conn.model('Book', bookSchema);
    await conn.model('Book').init(); // builds the unique index
  });
  after(async function () {
    this.timeout(30_000);
    await conn?.dropDatabase();
    await conn?.close();
    await handle?.stop();
  });

  it('save with timestamps, find and lean', async () => {
    const Book = conn.model('Book');
    const book = await new Book({ title: 'T', sku: 'sku-1', price: 5 }).save();
    expect(book.get('createdAt')).to.be.instanceOf(Date);
    const found = await Book.findById(book._id).lean<{ title: string; updatedAt: Date }>();
    expect(found?.title).to.equal('T');
    expect(found?.updatedAt).to.be.instanceOf(Date);
    book.set('price', 6);
    await book.save();
    expect((await Book.findOne({ sku: 'sku-1' }))?.get('price')).to.equal(6);
  });

  it('a unique index makes a second save fail with E11000', async () => {
    const Book = conn.model('Book');
    await Book.create({ title: 'first', sku: 'dup-sku' });
    try {
      await Book.create({ title: 'second', sku: 'dup-sku' });
      expect.fail('should throw');
    } catch (err) {
      const e = err as { code?: number; keyValue?: unknown; keyPattern?: unknown };
      expect(e.code).to.equal(11000);
      expect(e.keyValue).to.deep.equal({ sku: 'dup-sku' });
      expect(e.keyPattern).to.deep.equal({ sku: 1 });
    }
  });

  it('populate resolves ObjectId references', async () => {
    const Author = conn.model('Author');
    const Book = conn.model('Book');
    const ann = await Author.create({ name: 'Ann' });
    await Book.create({ title: 'Pop', sku: 'pop-1', author: ann._id });
    const book = await Book.findOne({ sku: 'pop-1' }).populate<{ author: { name: string } }>('author');
    expect(book?.author.name).to.equal('Ann');
  });

  it('aggregate through a model', async () => {
    const Book = conn.model('Book');
    await Book.create([
      { title: 'g1', sku: 'agg-1', price: 10 },
      { title: 'g2', sku: 'agg-2', price: 30 },
    ]);
    const [row] = await Book.aggregate<{ total: number }>([{ $match: { sku: /^agg-/ } }, { $group: { _id: null, total: { $sum: '$price' } } }]);
    expect(row.total).to.equal(40);
  });

  it('validation errors do not reach the server; updateOne/deleteOne work', async () => {
    const Author = conn.model('Author');
    try {
      await Author.create({});
      expect.fail('should throw');
    } catch (err) {
      expect((err as Error).name).to.equal('ValidationError');
    }
    const a = await Author.create({ name: 'Tmp' });
    expect((await Author.updateOne({ _id: a._id }, { name: 'Tmp2' })).modifiedCount).to.equal(1);
    expect((await Author.deleteOne({ _id: a._id })).deletedCount).to.equal(1);
  });

  it('connection.transaction commits, and a thrown error rolls back', async () => {
    const Author = conn.model('Author');
    await conn.transaction(async (session) => {
      await Author.create([{ name: 'InTxn' }], { session });
    });
    expect(await Author.countDocuments({ name: 'InTxn' })).to.equal(1);
    try {
      await conn.transaction(async (session) => {
        await Author.create([{ name: 'RolledBack' }], { session });
        throw new Error('boom');
      });
    } catch (err) {
      expect((err as Error).message).to.equal('boom');
    }
    expect(await Author.countDocuments({ name: 'RolledBack' })).to.equal(0);
  });

  it('session.withTransaction through mongoose', async () => {
    const Author = conn.model('Author');
    const session = await conn.startSession();
    try {
      await session.withTransaction(async () => {
        await Author.create([{ name: 'WT' }], { session });
        expect(await Author.countDocuments({ name: 'WT' })).to.equal(0);
        expect(await Author.countDocuments({ name: 'WT' }).session(session)).to.equal(1);
      });
    } finally {
      await session.endSession();
    }
    expect(await Author.countDocuments({ name: 'WT' })).to.equal(1);
  });
});
