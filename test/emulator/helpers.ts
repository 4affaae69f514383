import { MongoClient, type Db } from 'mongodb';
import { startMongo, type MongoHandle } from '../../lib/testing/start-mongo';

export interface MongoFixture {
  handle: MongoHandle;
  client: MongoClient;
  /** A fresh database, dropped by the fixture's `after` hook. */
  db(prefix: string): Db;
}

/**
 * Registers before/after hooks that start a MongoDB (the emulator offline, a real mongod elsewhere)
 * and connect the official driver. The returned object is filled in by the `before` hook.
 */
export function useMongo(): MongoFixture {
  const created: string[] = [];
  const fixture = {
    db(prefix: string): Db {
      const name = freshDbName(prefix);
      created.push(name);
      return fixture.client.db(name);
    },
  } as MongoFixture;
  before(async function () {
    this.timeout(60_000);
    fixture.handle = await startMongo();
    fixture.client = new MongoClient(fixture.handle.uri, { serverSelectionTimeoutMS: 10_000 });
    await fixture.client.connect();
  });
  after(async function () {
    this.timeout(30_000);
    for (const name of created) await fixture.client?.db(name).dropDatabase();
    await fixture.client?.close();
    await fixture.handle?.stop();
  });
  return fixture;
}

let counter = 0;
/** A fresh database name so tests never see each other's data. */
export function freshDbName(prefix: string): string {
  counter += 1;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter}`;
}
