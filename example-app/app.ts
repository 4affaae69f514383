import express, { type ErrorRequestHandler } from 'express';
import type winston from 'winston';
import { createRestApi, type RestApi, type RestApiOptions } from '../lib';
import { ensureAdminUser } from './admin-user';
import { bearerGuard, exampleGrants, newToken } from './auth';
import { openMongoBackend, type MongoBackend } from './mongo/backend';
import { exampleRelationRoutes, exampleResources } from './resources';
import { seedDemoData, type SeedSummary } from './seed';
import { openSqlBackend, type SqlBackend } from './sql/backend';

export const API_PREFIX = '/api/v1';
/** The example app's request deadline unless REST_REQUEST_TIMEOUT_MS is set. */
export const EXAMPLE_REQUEST_TIMEOUT_MS = 10_000;

export interface ExampleAppOptions {
  driver: 'mongo' | 'sql';
  /** Required for the mongo driver (server.ts falls back to the testing kit). */
  mongoUri?: string;
  /** Required for the sql driver. */
  postgresUri?: string;
  /** Load the demo data set when the database is empty (default false here; server.ts seeds by default). */
  seed?: boolean;
  logger?: winston.Logger;
  /** A superuser holding this api token exists after start (EXAMPLE_ADMIN_TOKEN); default: a fresh random token. */
  adminToken?: string;
  /**
   * Bearer-token authentication and the roles' permissions on every route but /health (default
   * true). false only serves the benchmark's "authorization off" figure.
   */
  auth?: boolean;
  /** `Forbidden: <permission>` in 403 answers (APP_DEBUG). */
  debug?: boolean;
  /** Library options over the example's (read cache settings, ...). */
  apiOptions?: Partial<RestApiOptions>;
  /**
   * MongoDB only, default true: writes run in transactions (a replica set is needed; a standalone
   * server is refused at start). false declares `transactions: false` for the connection.
   */
  mongoTransactions?: boolean;
  /** History per resource name over the example's (orders keep history, decision 83): the tests' and benchmark's other settings. */
  history?: Record<string, boolean | { retain?: { versions: number } }>;
}

export interface ExampleAppInfo {
  driver: 'mongo' | 'sql';
  /** Database name on the server (the contract tests open it directly to write pivot rows). */
  database: string;
  /** `mongodb://host:port/db` or `postgresql://host:port/db`, without credentials. */
  location: string;
  /** What seeding inserted, when it ran. */
  seeded: SeedSummary | null;
  /** The superuser's api token (EXAMPLE_ADMIN_TOKEN or generated). */
  adminToken: string;
}

export interface ExampleApp {
  app: express.Express;
  api: RestApi;
  /** Deletes every record of the five resources and the pivot (between test files). */
  reset(): Promise<void>;
  close(): Promise<void>;
  info: ExampleAppInfo;
}

async function openBackend(options: ExampleAppOptions): Promise<MongoBackend | SqlBackend> {
  if (options.driver === 'mongo') {
    if (!options.mongoUri) throw new Error('createExampleApp: driver mongo needs mongoUri');
    return openMongoBackend(options.mongoUri, { transactions: options.mongoTransactions });
  }
  if (options.driver === 'sql') {
    if (!options.postgresUri) throw new Error('createExampleApp: driver sql needs postgresUri');
    return openSqlBackend(options.postgresUri);
  }
  throw new Error(`createExampleApp: unknown driver ${String(options.driver)} (mongo or sql)`);
}

/** Seeds only an empty shop, so restarting against a persistent database does not duplicate it. */
async function seedIfEmpty(backend: MongoBackend | SqlBackend): Promise<SeedSummary | null> {
  const existing = backend.driver === 'mongo' ? await backend.models.Product.countDocuments() : await backend.models.Product.count();
  if (existing > 0) return null;
  return backend.driver === 'mongo' ? seedDemoData(backend.models, 'mongo') : seedDemoData(backend.models, 'sql');
}

/** Answers outside the API in the API's error shape. */
const fallbackErrors: ErrorRequestHandler = (err, _req, res, next) => {
  if (res.headersSent) return next(err);
  res.status(500).json({ message: 'Internal server error.', type: 'internal_error', status: 500 });
};

/**
 * The demo shop: the five resources on one driver, mounted under /api/v1, plus a health check.
 * The API router parses JSON bodies itself (1 MB limit) and renders its own errors.
 */
export async function createExampleApp(options: ExampleAppOptions): Promise<ExampleApp> {
  const backend = await openBackend(options);
  try {
    const guard = bearerGuard(backend);
    // a 401 says where a token comes from (WWW-Authenticate, decision 78)
    const challenge = { realm: 'example-shop', hint: "A user's api_token: the start log prints the superuser's (EXAMPLE_ADMIN_TOKEN chooses it) and the demo users' tokens" };
    const auth = options.auth === false ? undefined : { authenticate: guard.authenticate, grants: exampleGrants, debug: options.debug, challenge };
    // a shop answers within 10 s or says 503 (the library's default deadline is 60 s): a stalled
    // database must not hold a request longer; REST_REQUEST_TIMEOUT_MS or apiOptions still decide
    const deadline = process.env.REST_REQUEST_TIMEOUT_MS ? {} : { requestTimeoutMs: EXAMPLE_REQUEST_TIMEOUT_MS };
    const api = createRestApi({ logger: options.logger, bodyLimit: '1mb', auth, ...options.apiOptions, config: { ...deadline, ...options.apiOptions?.config } });
    for (const declared of exampleResources(backend.models, backend.driver, guard.forget)) {
      const declaration = options.history && declared.name in options.history ? { ...declared, history: options.history[declared.name] } : declared;
      api.register(declaration, { updateMultipleRoutes: ['batch', 'update-multiple'], relationRoutes: exampleRelationRoutes[declaration.MODEL] });
    }
    // the database is asked what it is before anything is written (a standalone MongoDB is refused, decision 65)
    await api.ready();

    const seeded = options.seed ? await seedIfEmpty(backend) : null;
    const adminToken = options.adminToken ?? newToken();
    await ensureAdminUser(backend, adminToken);

    const info: ExampleAppInfo = { driver: backend.driver, database: backend.database, location: backend.location, seeded, adminToken };
    const app = express();
    app.disable('x-powered-by');
    // readiness: the database is asked each time (2 s at most); which one is down is said, with a 503
    app.get(`${API_PREFIX}/health`, async (_req, res) => {
      const name = info.driver === 'mongo' ? 'mongodb' : 'postgresql';
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([backend.ping(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no answer in 2 s')), 2000)))]);
        res.json({ status: 'ok', driver: info.driver, database: info.location });
      } catch {
        res.status(503).set('Retry-After', '2').json({ status: 'unavailable', driver: info.driver, database: info.location, down: [name] });
      } finally {
        clearTimeout(timer);
      }
    });
    app.use(API_PREFIX, api.router());
    app.use(API_PREFIX, api.docsRouter({ title: 'Example shop API' }));
    app.use((req, res) => {
      res.status(404).json({ message: `No route for ${req.method} ${req.path}.`, type: 'not_found', status: 404 });
    });
    app.use(fallbackErrors);

    let closed = false;
    return {
      app,
      api,
      info,
      // the superuser survives a reset, so its token keeps working between test files
      async reset() {
        await backend.reset();
        guard.forget();
        await ensureAdminUser(backend, adminToken);
      },
      async close() {
        if (closed) return;
        closed = true;
        try {
          await api.close();
        } finally {
          await backend.close();
        }
      },
    };
  } catch (err) {
    await backend.close().catch(() => undefined);
    throw err;
  }
}
