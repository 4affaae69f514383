import mongoose from 'mongoose';
import { configureMongo } from '../../drivers/mongo/connection-options';
import { databaseFromUri, describeLocation } from '../database-location';
import { allMongoModels, defineMongoModels, syncMongoModels, type MongoModels } from './models';

/** Database used when the URI names none (memory-server and emulator URIs do not). */
export const DEFAULT_MONGO_DATABASE = 'example_shop';

export interface MongoBackend {
  driver: 'mongo';
  models: MongoModels;
  /** Database name on the server. */
  database: string;
  /** `mongodb://host:port/db`, without credentials. */
  location: string;
  /** Deletes every document of the five models and the pivot. */
  reset(): Promise<void>;
  /** Asks the server (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Connects, defines the models and builds their collections and indexes. `transactions: false`
 * declares that the library writes without transactions on this connection (a standalone server).
 */
export async function openMongoBackend(uri: string, options: { transactions?: boolean } = {}): Promise<MongoBackend> {
  const database = databaseFromUri(uri) ?? DEFAULT_MONGO_DATABASE;
  const connection = mongoose.createConnection(uri, { dbName: database, autoIndex: false });
  if (options.transactions === false) configureMongo(connection, { transactions: false });
  await connection.asPromise();
  try {
    const models = defineMongoModels(connection);
    await syncMongoModels(models);
    return {
      driver: 'mongo',
      models,
      database,
      location: describeLocation(uri, database),
      async reset() {
        for (const model of allMongoModels(models)) await model.deleteMany({});
        // the library's Idempotency-Key store (decision 80)
        await connection.db!.collection('grr_idempotency_keys').deleteMany({});
        // the library's history collections (decision 83)
        for (const model of allMongoModels(models)) await connection.db!.collection(`grr_history_${model.collection.collectionName}`).deleteMany({});
      },
      async ping() {
        await connection.db!.command({ ping: 1 });
      },
      async close() {
        await connection.close();
      },
    };
  } catch (err) {
    await connection.close().catch(() => undefined);
    throw err;
  }
}
