import type { Server } from 'node:http';
import winston from 'winston';
import { startMongo, startPostgres, startRedis, type RedisHandle } from '../lib/testing';
import { createExampleApp, API_PREFIX, type ExampleApp } from './app';
import { stopServer } from '../lib/http/shutdown';

/**
 * `npm start`: the demo shop on PORT (default 3000).
 * DB_DRIVER=mongo|sql (default mongo). MONGODB_URI / DATABASE_URL point at real servers; without
 * them an embedded database from the testing kit is started (fresh at every start) and stopped on
 * SIGINT/SIGTERM. EXAMPLE_SEED=0 starts empty. EXAMPLE_ADMIN_TOKEN creates a superuser with that token.
 * TEST_MONGO_TOPOLOGY=standalone|replset and TEST_MONGO_VERSION=5.0|6.0|7.0|8.0 choose the embedded
 * MongoDB the testing kit starts; a standalone one is refused at start unless MONGODB_TRANSACTIONS=false
 * (writes then run without transactions).
 */

const logger = winston.createLogger({
  level: process.env.LOG_LEVEL ?? 'info',
  format: winston.format.combine(
    winston.format.timestamp(),
    winston.format.printf(({ timestamp, level, message, channel, ...meta }) => {
      const extra = Object.keys(meta).length > 0 ? ` ${JSON.stringify(meta)}` : '';
      return `${String(timestamp)} ${level}${channel ? ` [${String(channel)}]` : ''}: ${String(message)}${extra}`;
    }),
  ),
  transports: [new winston.transports.Console()],
});

function driverFromEnv(): 'mongo' | 'sql' {
  const raw = (process.env.DB_DRIVER ?? 'mongo').trim().toLowerCase();
  if (raw === 'mongo' || raw === 'mongodb') return 'mongo';
  if (raw === 'sql' || raw === 'postgres' || raw === 'postgresql') return 'sql';
  throw new Error(`DB_DRIVER must be mongo or sql, not "${raw}"`);
}

function portFromEnv(): number {
  const raw = process.env.PORT ?? '3000';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, not "${raw}"`);
  return port;
}

async function listen(app: ExampleApp['app'], port: number): Promise<Server> {
  const server = app.listen(port);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return server;
}

async function main(): Promise<void> {
  const driver = driverFromEnv();
  const port = portFromEnv();
  const seed = process.env.EXAMPLE_SEED !== '0' && process.env.EXAMPLE_SEED !== 'false';

  // startMongo/startPostgres use MONGODB_URI/DATABASE_URL when set, else an embedded database.
  const database = driver === 'mongo' ? await startMongo() : await startPostgres();
  // REST_CACHE_STORE=redis: REDIS_URL, else a redis-server from PATH started by the testing kit
  let redis: RedisHandle | null = null;
  if (process.env.REST_CACHE_STORE === 'redis') redis = await startRedis();
  let example: ExampleApp | null = null;
  let server: Server | null = null;

  // Stops what was started, in reverse order; an embedded database must not outlive the process.
  // Graceful: no new connections, in-flight requests get SHUTDOWN_TIMEOUT_MS (default 10 s) to
  // finish, change-feed streams end, then the pools close.
  let stopping = false;
  const shutdownTimeoutMs = Number(process.env.SHUTDOWN_TIMEOUT_MS) > 0 ? Number(process.env.SHUTDOWN_TIMEOUT_MS) : 10_000;
  const shutdown = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    try {
      if (example) await example.api.shutdown(server ?? undefined, { timeoutMs: shutdownTimeoutMs });
      else if (server) await stopServer(server, { timeoutMs: shutdownTimeoutMs });
      await example?.close();
    } finally {
      await redis?.stop();
      await database.stop();
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      logger.info(`${signal}: stopping`);
      shutdown().then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error(`error while stopping: ${(err as Error).message}`);
          process.exit(1);
        },
      );
    });
  }

  try {
    example = await createExampleApp({
      driver,
      mongoUri: driver === 'mongo' ? database.uri : undefined,
      postgresUri: driver === 'sql' ? database.uri : undefined,
      seed,
      logger,
      adminToken: process.env.EXAMPLE_ADMIN_TOKEN || undefined,
      mongoTransactions: !['0', 'false', 'no', 'off'].includes((process.env.MONGODB_TRANSACTIONS ?? '').trim().toLowerCase()),
      debug: process.env.APP_DEBUG === 'true',
      apiOptions: redis ? { cache: { redisUrl: redis.url } } : undefined,
    });
    const { info } = example;
    logger.info(`database: ${info.location} (${driver === 'mongo' ? 'MongoDB' : 'PostgreSQL'}, ${database.kind})`);
    if (info.seeded) {
      const { tokens, ...counts } = info.seeded;
      logger.info(`demo data loaded: ${JSON.stringify(counts)}`);
      // demo credentials, fresh at every seed, shown once so the README's curl examples can be tried per role
      for (const [role, token] of Object.entries(tokens)) logger.info(`demo ${role}: Authorization: Bearer ${token}`);
    } else logger.info(seed ? 'demo data not loaded: the database already holds products' : 'demo data not loaded (EXAMPLE_SEED=0)');
    if (process.env.EXAMPLE_ADMIN_TOKEN) logger.info('superuser admin@example.test holds EXAMPLE_ADMIN_TOKEN');
    else logger.info(`superuser admin@example.test: Authorization: Bearer ${info.adminToken} (set EXAMPLE_ADMIN_TOKEN to choose it)`);
    if (process.env.APP_DEBUG === 'true') logger.info('APP_DEBUG=true: 403 answers name the missing permission');

    server = await listen(example.app, port);
  } catch (err) {
    await shutdown().catch(() => undefined);
    throw err;
  }
  const address = server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  logger.info(`example shop (${driver}) listening on http://localhost:${actualPort}${API_PREFIX} (health: ${API_PREFIX}/health)`);
}

main().catch((err: unknown) => {
  // a refusal says what to do; its stack would only bury that
  const refused = err instanceof Error && err.name === 'MongoServerRefusedError';
  logger.error(`example app failed to start: ${err instanceof Error ? (refused ? err.message : (err.stack ?? err.message)) : String(err)}`);
  process.exit(1);
});
