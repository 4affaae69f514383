import { expect } from 'chai';
import { MongoClient, type Collection, type Document } from 'mongodb';
import { startEmulator, type EmulatorHandle } from '../../lib/testing/emulator';
import { commands } from '../../lib/testing/emulator/commands';

/**
 * The emulator under concurrent load through the official driver: many readers and writers on one
 * big pool must never make the driver clear it (the monitor's hello stream must keep answering:
 * before it was an exhaust stream, "Server ended moreToCome unexpectedly" cleared the pool at the
 * first heartbeat), and a large bulk insert must take time linear in its size without holding up
 * other connections for its whole duration.
 */
describe('emulator: concurrent load', () => {
  let emulator: EmulatorHandle;
  let client: MongoClient;
  const failures: string[] = [];

  before(async () => {
    emulator = await startEmulator();
    // heartbeats every 500 ms (the driver's minimum) so a few seconds cover several hello-stream replies
    client = new MongoClient(emulator.uri, { maxPoolSize: 300, heartbeatFrequencyMS: 500, serverSelectionTimeoutMS: 10_000 });
    client.on('connectionPoolCleared', (e) => failures.push(`connectionPoolCleared ${JSON.stringify(e.address)}`));
    client.on('serverHeartbeatFailed', (e) => failures.push(`serverHeartbeatFailed ${e.failure?.message}`));
    client.on('connectionCheckOutFailed', (e) => failures.push(`connectionCheckOutFailed ${String(e.reason)}`));
    client.on('serverDescriptionChanged', (e) => {
      if (e.newDescription.type !== 'RSPrimary') failures.push(`server became ${e.newDescription.type}: ${e.newDescription.error?.message ?? ''}`);
    });
    await client.connect();
  });
  after(async () => {
    await client?.close();
    await emulator?.stop();
  });

  it('200 readers and 50 writers for 3 seconds: no error, the pool is never cleared', async function () {
    this.timeout(60_000);
    const items: Collection<Document> = client.db('load').collection('items');
    await items.createIndex({ sku: 1 }, { unique: true });
    await items.createIndex({ tag: 1 });
    await items.insertMany(Array.from({ length: 2000 }, (_, i) => ({ sku: `S${i}`, n: i, tag: i % 10 })));
    const errors: string[] = [];
    let stop = false;
    let reads = 0;
    let writes = 0;
    const readers = Array.from({ length: 200 }, async (_, r) => {
      while (!stop) {
        try {
          const page = await items.find({ tag: r % 10 }).sort({ n: -1 }).limit(20).toArray();
          const one = await items.findOne({ sku: `S${(r * 7) % 2000}` });
          if (page.length !== 20 || !one) errors.push(`reader ${r}: ${page.length} documents, ${one ? 'found' : 'missing'} S${(r * 7) % 2000}`);
          reads += 2;
        } catch (e) {
          errors.push(`reader ${r}: ${(e as Error).message}`);
        }
      }
    });
    const writers = Array.from({ length: 50 }, async (_, w) => {
      let i = 0;
      while (!stop) {
        try {
          await items.insertOne({ sku: `W${w}-${i++}`, n: i, tag: w % 10 });
          await items.updateOne({ sku: `S${w}` }, { $inc: { n: 1 } });
          writes += 2;
        } catch (e) {
          errors.push(`writer ${w}: ${(e as Error).message}`);
        }
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    stop = true;
    await Promise.all([...readers, ...writers]);
    console.log(`      ${reads} reads, ${writes} writes in 3 s`);
    expect(errors.slice(0, 5)).to.deep.equal([]);
    expect(failures).to.deep.equal([]);
    expect(reads).to.be.greaterThan(200);
    expect(writes).to.be.greaterThan(50);
  });

  it('a 10,000-document insert under a unique index is linear, and pings are answered while it runs', async function () {
    this.timeout(120_000);
    // the server has begun running the insert's statements (set by a wrapper around the insert handler)
    let serverStarted = false;
    const insertHandler = commands.insert;
    commands.insert = (ctx) => {
      serverStarted = true;
      return insertHandler(ctx);
    };
    const timeInsert = async (n: number): Promise<{ ms: number; pingsDuring: number }> => {
      const coll = client.db('load').collection(`bulk_${n}`);
      await coll.createIndex({ sku: 1 }, { unique: true });
      const docs = Array.from({ length: n }, (_, i) => ({ sku: `B${i}`, name: `bulk ${i}`, price: i % 100 }));
      let done = false;
      let pingsDuring = 0;
      serverStarted = false;
      const started = performance.now();
      const insert = coll.insertMany(docs).then((r) => {
        done = true;
        return r;
      });
      while (!done) {
        const sentAfterStart = serverStarted;
        await client.db('admin').command({ ping: 1 });
        // a ping sent once the server was running the insert, answered before the insert's reply
        if (sentAfterStart && !done) pingsDuring++;
      }
      const result = await insert;
      expect(result.insertedCount).to.equal(n);
      return { ms: performance.now() - started, pingsDuring };
    };
    let small: { ms: number; pingsDuring: number };
    let big: { ms: number; pingsDuring: number };
    try {
      small = await timeInsert(2_500);
      big = await timeInsert(10_000);
    } finally {
      commands.insert = insertHandler;
    }
    console.log(`      insertMany 2,500: ${small.ms.toFixed(0)} ms; 10,000: ${big.ms.toFixed(0)} ms, ${big.pingsDuring} pings answered meanwhile`);
    // quadratic would be 16x; linear is 4x (allow noise from the shared machine)
    expect(big.ms).to.be.lessThan(Math.max(small.ms * 8, 1000));
    expect(big.ms).to.be.lessThan(20_000);
    // the insert runs in slices with the event loop turning in between: other commands get answers
    expect(big.pingsDuring).to.be.greaterThan(0);
    // a duplicate in the batch still stops an ordered insert exactly there, whatever slice it is in
    const dup = client.db('load').collection('bulk_dup');
    await dup.createIndex({ sku: 1 }, { unique: true });
    const docs = Array.from({ length: 3000 }, (_, i) => ({ sku: i === 2500 ? 'D10' : `D${i}` }));
    const error = await dup.insertMany(docs).then(() => undefined, (e: { code?: number; writeErrors?: unknown; result?: { insertedCount: number } }) => e);
    expect(error?.code).to.equal(11000);
    expect(await dup.countDocuments()).to.equal(2500);
    expect(failures).to.deep.equal([]);
  });
});
