import { expect } from 'chai';
import express from 'express';
import mongoose, { Schema, type Connection } from 'mongoose';
import request from 'supertest';
import { createRestApi, type RestApi } from '../../../lib';
import { checkMongoServer, configureMongo, createMongoDriver, inspectMongoServer, MongoServerRefusedError, type MongoServerFacts } from '../../../drivers/mongo';
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from '../../../lib/testing/emulator';

/** Decision 65: the MongoDB driver asks the server what it is at start and refuses what it cannot serve. */

const facts = (topology: MongoServerFacts['topology'], version: string): MongoServerFacts => {
  const [major, minor] = version.split('.').map(Number);
  return { topology, version, release: [major, minor] };
};

function refusal(work: () => void): MongoServerRefusedError {
  try {
    work();
  } catch (error) {
    expect(error).to.be.instanceOf(MongoServerRefusedError);
    return error as MongoServerRefusedError;
  }
  throw new Error('expected a refusal');
}

describe('MongoDB server check (decision 65)', () => {
  describe('the rules', () => {
    it('a standalone server is refused: writes run in transactions, which need a replica set; how to make one', () => {
      const error = refusal(() => checkMongoServer(facts('standalone', '7.0.14'), { transactions: true, where: 'db.example:27017' }));
      expect(error.message).to.include('db.example:27017');
      expect(error.message).to.match(/standalone/);
      expect(error.message).to.match(/transaction/);
      expect(error.message).to.match(/replica set/);
      expect(error.message).to.include('--replSet rs0');
      expect(error.message).to.include('rs.initiate()');
      expect(error.message).to.include('transactions: false');
    });

    it('a standalone server is accepted when the connection declares transactions: false', () => {
      expect(() => checkMongoServer(facts('standalone', '7.0.14'), { transactions: false })).not.to.throw();
    });

    it('a release older than 5.0 is refused naming the version found and the version needed, whatever the topology', () => {
      for (const topology of ['replicaSet', 'standalone', 'mongos'] as const) {
        const error = refusal(() => checkMongoServer(facts(topology, '4.4.29'), { transactions: false }));
        expect(error.message).to.include('4.4.29');
        expect(error.message).to.include('5.0');
      }
    });

    it('5.0 and later replica sets pass', () => {
      for (const version of ['5.0.0', '5.0.26', '6.0.19', '7.0.14', '8.0.4', '10.1.0']) expect(() => checkMongoServer(facts('replicaSet', version), { transactions: true })).not.to.throw();
    });

    it('a mongos is supported from 5.1 ($lookup/$graphLookup into sharded collections); a 5.0 mongos is refused saying so', () => {
      const error = refusal(() => checkMongoServer(facts('mongos', '5.0.26'), { transactions: true }));
      expect(error.message).to.match(/mongos/);
      expect(error.message).to.match(/\$lookup/);
      expect(error.message).to.include('5.1');
      expect(() => checkMongoServer(facts('mongos', '5.1.0'), { transactions: true })).not.to.throw();
      expect(() => checkMongoServer(facts('mongos', '7.0.2'), { transactions: true })).not.to.throw();
    });

    it('reads the topology from hello (setName, msg isdbgrid, neither) and the version from buildInfo', async () => {
      const answers = (hello: object, build: object) => async (command: Record<string, unknown>) => ('hello' in command ? { ok: 1, ...hello } : { ok: 1, ...build });
      expect(await inspectMongoServer(answers({ setName: 'rs0' }, { version: '6.0.19', versionArray: [6, 0, 19, 0] }))).to.deep.equal({ topology: 'replicaSet', version: '6.0.19', release: [6, 0], setName: 'rs0' });
      expect(await inspectMongoServer(answers({ msg: 'isdbgrid' }, { version: '7.0.2' }))).to.deep.equal({ topology: 'mongos', version: '7.0.2', release: [7, 0] });
      expect(await inspectMongoServer(answers({}, { version: '5.0.26', versionArray: [5, 0, 26, 0] }))).to.deep.equal({ topology: 'standalone', version: '5.0.26', release: [5, 0] });
    });
  });

  describe('against the emulator playing each server', function () {
    this.timeout(60_000);
    let emulator: EmulatorHandle | null = null;
    let connection: Connection | null = null;

    afterEach(async () => {
      await connection?.close();
      await emulator?.stop();
      connection = null;
      emulator = null;
    });

    /** A one-resource API over a fresh connection to an emulator playing `options`. */
    async function apiOn(options: EmulatorOptions, declare?: (conn: Connection) => void, driverOptions?: { transactions: boolean }): Promise<{ api: RestApi; app: express.Express }> {
      emulator = await startEmulator(options);
      connection = await mongoose.createConnection(emulator.uri, { dbName: 'server_check', serverSelectionTimeoutMS: 5000 }).asPromise();
      const Note = connection.model('Note', new Schema({ title: { type: String, required: true } }, { timestamps: { createdAt: 'created_at', updatedAt: 'updated_at' } }));
      declare?.(connection);
      const api = createRestApi();
      api.register({ name: 'notes', MODEL: 'note', model: Note, fillable: ['title'], ...(driverOptions ? { driver: createMongoDriver(connection, driverOptions) } : {}) });
      const app = express();
      app.use('/api', api.router());
      return { api, app };
    }

    async function readyRefusal(api: RestApi): Promise<Error> {
      try {
        await api.ready();
      } catch (error) {
        return error as Error;
      }
      throw new Error('expected api.ready() to refuse');
    }

    it('a standalone server: api.ready() refuses naming the replica set, and requests fail instead of writing outside a transaction', async () => {
      const { api, app } = await apiOn({ topology: 'standalone', version: '7.0' });
      const error = await readyRefusal(api);
      expect(error.name).to.equal('MongoServerRefusedError');
      expect(error.message).to.match(/replica set/);
      expect(error.message).to.include('rs.initiate()');
      const res = await request(app).post('/api/notes').send({ title: 'a' });
      expect(res.status).to.equal(500);
      expect(await connection!.db!.collection('notes').countDocuments()).to.equal(0);
    });

    for (const [how, declare, driverOptions] of [
      ['configureMongo(connection, {transactions: false})', (conn: Connection) => configureMongo(conn, { transactions: false }), undefined],
      ['createMongoDriver(connection, {transactions: false})', undefined, { transactions: false }],
    ] as const) {
      it(`a standalone server with ${how}: create, update and delete work`, async () => {
        const { api, app } = await apiOn({ topology: 'standalone', version: '5.0' }, declare, driverOptions);
        await api.ready();
        const created = await request(app).post('/api/notes').send({ title: 'first' });
        expect(created.status, JSON.stringify(created.body)).to.equal(200);
        const id = created.body.model.id as string;
        const bulk = await request(app).post('/api/notes').send([{ title: 'b1' }, { title: 'b2' }]);
        expect(bulk.status, JSON.stringify(bulk.body)).to.be.oneOf([200, 201]);
        const updated = await request(app).put(`/api/notes/${id}`).send({ title: 'second' });
        expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
        expect(updated.body.model.title).to.equal('second');
        const deleted = await request(app).delete(`/api/notes/${id}`);
        expect(deleted.status, JSON.stringify(deleted.body)).to.equal(200);
        const list = await request(app).get('/api/notes');
        expect(list.status).to.equal(200);
        const titles = ((list.body.data ?? list.body) as Array<{ title: string }>).map((n) => n.title).sort();
        expect(titles).to.deep.equal(['b1', 'b2']);
        // no lock documents outside transactions
        expect(await connection!.db!.listCollections({ name: '__rest_reference_locks' }).toArray()).to.deep.equal([]);
      });
    }

    it('MongoDB 4.4: api.ready() refuses naming the version found and the version needed', async () => {
      const { api } = await apiOn({ topology: 'replset', version: '4.4' });
      const error = await readyRefusal(api);
      expect(error.message).to.include('4.4.29');
      expect(error.message).to.include('5.0');
    });

    it('a 5.0 replica set is served', async () => {
      const { api, app } = await apiOn({ topology: 'replset', version: '5.0' });
      await api.ready();
      const created = await request(app).post('/api/notes').send({ title: 'x' });
      expect(created.status).to.equal(200);
    });
  });
});
