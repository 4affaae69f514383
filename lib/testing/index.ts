export { startMongo, type MongoHandle, type MongoKind, type StartMongoOptions } from './start-mongo';
export { startPostgres, type PostgresHandle, type PostgresKind } from './start-postgres';
export { startRedis, RedisUnavailableError, type RedisHandle, type RedisKind } from './start-redis';
