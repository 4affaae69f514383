import { expect } from 'chai';
import { MongoClient, MongoServerError, type Db, type Document } from 'mongodb';
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from '../../lib/testing/emulator';
import { EmulatorState } from '../../lib/testing/emulator/commands';
import { serverProfile } from '../../lib/testing/emulator/profile';
import { execute } from '../../lib/testing/emulator/server';
import { OP_MSG } from '../../lib/testing/emulator/wire';

/**
 * The emulator plays a standalone mongod or an older release (TEST_MONGO_TOPOLOGY,
 * TEST_MONGO_VERSION, or startEmulator options): hello/buildInfo answer as that server, a
 * standalone refuses transactions, an older release refuses what it does not have, with the codes
 * those servers answer.
 */
async function withServer(options: EmulatorOptions, work: (db: Db, client: MongoClient, emulator: EmulatorHandle) => Promise<void>): Promise<void> {
  const emulator = await startEmulator(options);
  const client = new MongoClient(emulator.uri, { serverSelectionTimeoutMS: 5000 });
  try {
    await client.connect();
    await work(client.db('profiles'), client, emulator);
  } finally {
    await client.close();
    await emulator.stop();
  }
}

async function refusal(work: Promise<unknown>): Promise<MongoServerError> {
  try {
    await work;
  } catch (error) {
    expect(error).to.be.instanceOf(MongoServerError);
    return error as MongoServerError;
  }
  throw new Error('expected the server to refuse');
}

describe('emulator: server profiles (topology and release)', function () {
  this.timeout(30_000);

  it('plays a one-member 7.0 replica set by default', async () => {
    await withServer({ topology: 'replset', version: '7.0' }, async (db) => {
      const hello = await db.admin().command({ hello: 1 });
      expect(hello.setName).to.equal('rs0');
      expect(hello.hosts).to.have.length(1);
      expect(hello.isWritablePrimary).to.equal(true);
      expect(hello.maxWireVersion).to.equal(21);
      const build = await db.admin().command({ buildInfo: 1 });
      expect(build.version).to.equal('7.0.0');
      expect(build.versionArray).to.deep.equal([7, 0, 0, 0]);
    });
  });

  for (const [version, wire, full] of [
    ['5.0', 13, '5.0.26'],
    ['6.0', 17, '6.0.19'],
    ['8.0', 25, '8.0.4'],
    ['4.4', 9, '4.4.29'],
  ] as const) {
    it(`answers hello and buildInfo as MongoDB ${version} (wire ${wire})`, async () => {
      await withServer({ topology: 'replset', version }, async (db) => {
        const hello = await db.admin().command({ hello: 1 });
        expect(hello.maxWireVersion).to.equal(wire);
        expect(hello.setName).to.equal('rs0');
        const legacy = await db.admin().command({ isMaster: 1 });
        expect(legacy.ismaster).to.equal(true);
        expect(legacy.maxWireVersion).to.equal(wire);
        const build = await db.admin().command({ buildInfo: 1 });
        expect(build.version).to.equal(full);
        expect(build.versionArray).to.deep.equal([...full.split('.').map(Number), 0]);
        const fcv = await db.admin().command({ getParameter: 1, featureCompatibilityVersion: 1 });
        expect(fcv.featureCompatibilityVersion).to.deep.equal({ version });
      });
    });
  }

  it('reads TEST_MONGO_TOPOLOGY and TEST_MONGO_VERSION when no option is given', async () => {
    const saved = { topology: process.env.TEST_MONGO_TOPOLOGY, version: process.env.TEST_MONGO_VERSION };
    process.env.TEST_MONGO_TOPOLOGY = 'standalone';
    process.env.TEST_MONGO_VERSION = '6.0';
    try {
      const emulator = await startEmulator();
      await emulator.stop();
      expect(emulator.profile).to.include({ topology: 'standalone', release: '6.0', version: '6.0.19', maxWireVersion: 17 });
      expect(emulator.uri).not.to.include('replicaSet');
    } finally {
      for (const [key, value] of [['TEST_MONGO_TOPOLOGY', saved.topology], ['TEST_MONGO_VERSION', saved.version]] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it('refuses a version or topology it cannot play, naming the accepted ones', () => {
    expect(() => serverProfile({ version: '3.6' })).to.throw(/3\.6.*5\.0, 6\.0, 7\.0, 8\.0/);
    expect(() => serverProfile({ topology: 'sharded' })).to.throw(/replset or standalone/);
    expect(serverProfile({ version: '5' }).release).to.equal('5.0');
    expect(serverProfile({ version: '5.0.3' }).release).to.equal('5.0');
  });

  describe('standalone', () => {
    it('hello has no replica set fields; the driver sees a standalone', async () => {
      await withServer({ topology: 'standalone', version: '7.0' }, async (db, client) => {
        const hello = await db.admin().command({ hello: 1 });
        expect(hello.isWritablePrimary).to.equal(true);
        for (const field of ['setName', 'hosts', 'primary', 'setVersion', 'electionId', 'msg']) expect(hello, field).not.to.have.property(field);
        expect(hello.logicalSessionTimeoutMinutes).to.equal(30);
        expect(hello).not.to.have.property('$clusterTime');
        const { topology } = client as unknown as { topology: { description: { servers: Map<string, { type: string }> } } };
        const servers = [...topology.description.servers.values()];
        expect(servers.map((s) => s.type)).to.deep.equal(['Standalone']);
      });
    });

    it('writes and reads outside transactions (no txnNumber: no retryable writes on a standalone)', async () => {
      await withServer({ topology: 'standalone' }, async (db) => {
        const items = db.collection('items');
        await items.insertOne({ _id: 1 as never, n: 1 });
        await items.updateOne({ _id: 1 as never }, { $set: { n: 2 } });
        expect(await items.findOne({ _id: 1 as never })).to.deep.equal({ _id: 1, n: 2 });
        await items.deleteOne({ _id: 1 as never });
        expect(await items.countDocuments()).to.equal(0);
      });
    });

    it('refuses a transaction with IllegalOperation (20), as mongod does', async () => {
      await withServer({ topology: 'standalone' }, async (db, client) => {
        const session = client.startSession();
        try {
          const error = await refusal(session.withTransaction(async () => {
            await db.collection('items').insertOne({ n: 1 }, { session });
          }));
          // the driver rewrites code 20 on a write into its own advice, keeping the server's error
          const original = (error as MongoServerError & { originalError?: { code?: number; codeName?: string; errmsg?: string } }).originalError;
          expect(original?.code).to.equal(20);
          expect(original?.codeName).to.equal('IllegalOperation');
          expect(original?.errmsg).to.equal('Transaction numbers are only allowed on a replica set member or mongos');
          expect(error.message).to.match(/does not support retryable writes/);
        } finally {
          await session.endSession();
        }
        expect(await db.collection('items').countDocuments()).to.equal(0);
      });
    });

    it('the refusal on the wire: ok 0, errmsg, code 20, codeName, no other fields', () => {
      const state = new EmulatorState(serverProfile({ topology: 'standalone' }));
      const lsid = { id: new (require('bson') as typeof import('bson')).UUID() };
      const reply = execute(state, { opCode: OP_MSG, requestId: 1, command: { insert: 'c', documents: [{ a: 1 }], lsid, txnNumber: 1, startTransaction: true, autocommit: false, $db: 'x' }, db: 'x', moreToCome: false } as never, 1);
      expect(reply).to.deep.equal({ ok: 0, errmsg: 'Transaction numbers are only allowed on a replica set member or mongos', code: 20, codeName: 'IllegalOperation' });
    });
  });

  describe('an older release refuses what it does not have', () => {
    const aggregate = (db: Db, pipeline: Document[]) => db.collection('items').aggregate(pipeline).toArray();

    it('5.0: $sortArray is an unrecognized expression (168), $densify an unrecognized stage (40324)', async () => {
      await withServer({ version: '5.0' }, async (db) => {
        await db.collection('items').insertMany([{ a: [3, 1, 2], n: 1 }, { a: [], n: 4 }]);
        const sorted = await refusal(aggregate(db, [{ $project: { s: { $sortArray: { input: '$a', sortBy: 1 } } } }]));
        expect(sorted.code).to.equal(168);
        expect(sorted.codeName).to.equal('InvalidPipelineOperator');
        expect(sorted.message).to.equal("Unrecognized expression '$sortArray'");
        const densify = await refusal(aggregate(db, [{ $densify: { field: 'n', range: { step: 1, bounds: 'full' } } }]));
        expect(densify.code).to.equal(40324);
        expect(densify.message).to.equal("Unrecognized pipeline stage name: '$densify'");
        // inside sub-pipelines and filters too
        const nested = await refusal(aggregate(db, [{ $lookup: { from: 'items', pipeline: [{ $match: { $expr: { $eq: [{ $firstN: { input: '$a', n: 1 } }, []] } } }], as: 'x' } }]));
        expect(nested.code).to.equal(168);
        const inFacet = await refusal(aggregate(db, [{ $facet: { a: [{ $documents: [{ x: 1 }] }] } }]));
        expect(inFacet.code).to.equal(40324);
        const accumulator = await refusal(aggregate(db, [{ $group: { _id: null, top: { $topN: { n: 1, sortBy: { n: 1 }, output: '$n' } } } }]));
        expect(accumulator.code).to.equal(15952);
        expect(accumulator.message).to.equal("unknown group operator '$topN'");
        const inFind = await refusal(db.collection('items').find({ $expr: { $eq: [{ $median: { input: '$a', method: 'approximate' } }, 1] } }).toArray());
        expect(inFind.code).to.equal(168);
      });
    });

    it('5.0 has what 5.0 has: $setWindowFields, $getField, the concise correlated $lookup, let', async () => {
      await withServer({ version: '5.0' }, async (db) => {
        await db.collection('items').insertMany([{ _id: 1 as never, k: 1, n: 1 }, { _id: 2 as never, k: 1, n: 2 }]);
        const windows = await aggregate(db, [{ $setWindowFields: { sortBy: { n: 1 }, output: { total: { $sum: '$n', window: { documents: ['unbounded', 'current'] } } } } }, { $project: { total: 1 } }]);
        expect(windows).to.deep.equal([{ _id: 1, total: 1 }, { _id: 2, total: 3 }]);
        const fields = await aggregate(db, [{ $project: { v: { $getField: 'n' } } }]);
        expect(fields.map((d) => d.v)).to.deep.equal([1, 2]);
        const joined = await aggregate(db, [{ $lookup: { from: 'items', localField: 'k', foreignField: 'k', let: { me: '$_id' }, pipeline: [{ $match: { $expr: { $ne: ['$_id', '$$me'] } } }, { $project: { _id: 1 } }], as: 'others' } }]);
        expect(joined.map((d) => d.others)).to.deep.equal([[{ _id: 2 }], [{ _id: 1 }]]);
        const withLet = await db.collection('items').find({ $expr: { $eq: ['$n', '$$two'] } }, { let: { two: 2 } }).toArray();
        expect(withLet.map((d) => d._id)).to.deep.equal([2]);
      });
    });

    it('7.0 accepts what 5.0 refuses', async () => {
      await withServer({ version: '7.0' }, async (db) => {
        await db.collection('items').insertOne({ a: [3, 1, 2] });
        const [doc] = await aggregate(db, [{ $project: { _id: 0, s: { $sortArray: { input: '$a', sortBy: 1 } } } }]);
        expect(doc).to.deep.equal({ s: [1, 2, 3] });
      });
    });

    it('4.4: $setWindowFields (40324), the concise correlated $lookup and a command let (FailedToParse) are refused', async () => {
      await withServer({ version: '4.4' }, async (db) => {
        await db.collection('items').insertOne({ k: 1 });
        expect((await refusal(aggregate(db, [{ $setWindowFields: { output: { c: { $count: {} } } } }]))).code).to.equal(40324);
        const concise = await refusal(aggregate(db, [{ $lookup: { from: 'items', localField: 'k', foreignField: 'k', pipeline: [], as: 'x' } }]));
        expect(concise.code).to.equal(9);
        const lets = await refusal(db.collection('items').aggregate([{ $match: {} }], { let: { a: 1 } }).toArray());
        expect(lets.code).to.equal(9);
        // what 4.4 has still works
        expect(await aggregate(db, [{ $lookup: { from: 'items', let: { k: '$k' }, pipeline: [{ $match: { $expr: { $eq: ['$k', '$$k'] } } }, { $project: { _id: 0, k: 1 } }], as: 'x' } }, { $project: { _id: 0, x: 1 } }])).to.deep.equal([{ x: [{ k: 1 }] }]);
      });
    });
  });

  it('a standalone refuses readConcern snapshot (NotAReplicaSet, 76), as mongod does', async () => {
    await withServer({ topology: 'standalone' }, async (db) => {
      await db.collection('snap').insertOne({ a: 1 });
      const error = await refusal(db.collection('snap').find({}, { readConcern: { level: 'snapshot' } }).toArray());
      expect(error.code).to.equal(76);
      expect(error.codeName).to.equal('NotAReplicaSet');
    });
  });
});
