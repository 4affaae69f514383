export { createMongoDriver, isMongooseModel, MongoDriver, type MongoTransaction } from './mongo-driver';
export { compileList, type CompiledList } from './compile-list';
export { configureMongo, type MongoConnectionOptions } from './connection-options';
export { checkMongoServer, inspectMongoServer, MongoServerRefusedError, OLDEST_SUPPORTED_VERSION, SHARDED_LOOKUP_VERSION, type MongoServerFacts, type MongoTopology } from './server-check';
export { likeRegex } from './like-pattern';
export type { StorageInfo, ModelMap } from './model-map';
export type { RelationShape, Shape } from './shape';

import type { Connection } from 'mongoose';
import { defineDriverFactory } from '../../lib/driver';
import { createMongoDriver, isMongooseModel } from './mongo-driver';

/** How the library finds this driver (`generic-resource-rest/mongo` registers it; else it is loaded lazily). */
export const driverFactory = defineDriverFactory<Connection>('mongo', isMongooseModel, 'db', createMongoDriver);

import { registerDriver } from '../../lib/driver';

registerDriver(driverFactory);
