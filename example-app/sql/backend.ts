import { Sequelize } from 'sequelize';
import { guardedPg } from './guarded-pg';
import { configureSql, type SqlConnectionOptions } from '../../drivers/sql/sql-options';
import { startupSettingsHold, TIMEOUTS } from './startup-settings';
import { databaseFromUri, describeLocation } from '../database-location';
import { defineSqlModels, PIVOT_TABLE, type SqlModels } from './models';

export interface SqlBackend {
  driver: 'sql';
  models: SqlModels;
  sequelize: Sequelize;
  /** Database name on the server. */
  database: string;
  /** `postgresql://host:port/db`, without credentials. */
  location: string;
  /** Empties the six tables and the pivot and restarts their id sequences. */
  reset(): Promise<void>;
  /** Asks the server (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Connects to PostgreSQL, defines the models and creates the schema (tables, constraints, indexes). */
export async function openSqlBackend(uri: string): Promise<SqlBackend> {
  // a statement may run 30 s at most, a transaction may not idle, a pool wait ends after 5 s (half the request deadline: work queued for a stalled database gives up before it returns, so the first requests after its return are not queued behind requests already answered 503);
  // a server that stops answering (stalled, unreachable) is given up on by the client too: 5 s to connect, 35 s per statement
  const direct = await startupSettingsHold(uri);
  const sequelize = new Sequelize(uri, {
    dialect: 'postgres',
    dialectModule: guardedPg,
    logging: false,
    // the timeouts as startup parameters where they hold (a direct connection); behind a pooler,
    // which refuses or drops them, the driver sets them per transaction and read (decision 85)
    dialectOptions: { ...(direct ? TIMEOUTS : {}), connectionTimeoutMillis: 5_000, query_timeout: 35_000, keepAlive: true },
    pool: { max: 5, acquire: 5_000 },
  });
  configureSql(sequelize, sqlConnectionOptions(process.env, direct));
  try {
    await sequelize.authenticate();
    const models = defineSqlModels(sequelize);
    await sequelize.sync();
    const database = databaseFromUri(uri) ?? 'postgres';
    const tables = [PIVOT_TABLE, 'reviews', 'orders', 'products', 'categories', 'tags', 'users'];
    return {
      driver: 'sql',
      models,
      sequelize,
      database,
      location: describeLocation(uri, database),
      async reset() {
        await sequelize.query(`TRUNCATE ${tables.map((t) => `"${t}"`).join(', ')} RESTART IDENTITY CASCADE`);
        // the library's Idempotency-Key store (decision 80): ids restart, so stored keys would name other callers
        await sequelize.query(`DO $$ BEGIN IF to_regclass('grr_idempotency_keys') IS NOT NULL THEN TRUNCATE "grr_idempotency_keys"; END IF; END $$`);
        // the library's history tables (decision 83): ids restart, so old entries would name new records
        await sequelize.query(`DO $$ DECLARE r record; BEGIN FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'grr\\_history\\_%' LOOP EXECUTE format('TRUNCATE %I', r.tablename); END LOOP; END $$`);
      },
      async ping() {
        await sequelize.query('SELECT 1');
      },
      async close() {
        await sequelize.close();
      },
    };
  } catch (err) {
    await sequelize.close().catch(() => undefined);
    throw err;
  }
}

/**
 * The driver's options from the environment: DB_PREPARED_STATEMENTS (`auto`, `on`, `off`),
 * DATABASE_REPLICA_URLS (comma-separated), and, unless startup parameters carry them (`direct`),
 * the statement (30 s) and idle-in-transaction (60 s) timeouts.
 */
export function sqlConnectionOptions(env: NodeJS.ProcessEnv, direct: boolean): SqlConnectionOptions {
  const mode = env.DB_PREPARED_STATEMENTS || 'auto';
  if (mode !== 'auto' && mode !== 'on' && mode !== 'off') throw new Error(`DB_PREPARED_STATEMENTS must be auto, on or off (got ${JSON.stringify(mode)}).`);
  const replicas = (env.DATABASE_REPLICA_URLS ?? '').split(',').map((u) => u.trim()).filter(Boolean);
  const timeouts = direct ? {} : { statementTimeout: TIMEOUTS.statement_timeout, idleInTransactionTimeout: TIMEOUTS.idle_in_transaction_session_timeout };
  return { preparedStatements: mode, ...timeouts, replicas };
}
