import { Query } from 'pg';
import { Sequelize } from 'sequelize';
import { currentReadRoute } from '../../lib/driver/read-route';
import { sqlOptions } from './sql-options';

/** What a replica lease needs of a pool client (run-statement.ts's PgClient). */
interface Client {
  query(query: object): unknown;
}

/** A replica chosen for one read. */
export interface Replica {
  readonly db: Sequelize;
  /** Runs on the read's connection before its statements (its replay position, when the cache fills). */
  before(lease: { lease: Client }): Promise<void>;
  /** True when the error says the replica cannot serve (down, refused, lost): marked down, the primary answers. */
  unreachable(error: unknown): boolean;
}

/** How long a replica that failed is left out before it is tried again. */
const DOWN_MS = 2_000;
const UNREACHABLE = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|Connection terminated|Connection refused|timeout|not queryable|the database system is (starting|shutting|in recovery)|terminating connection|Acquire|ConnectionError|HostNotReachable/i;
const UNREACHABLE_CODES = new Set(['57P01', '57P02', '57P03', '08006', '08003', '08001', '08004', '53300', '40001', 'ECONNREFUSED', 'ECONNRESET']);

class ReplicaSet {
  private readonly members: { db: Sequelize; downUntil: number }[];
  private next = 0;

  constructor(private readonly primary: Sequelize, urls: string[]) {
    this.members = urls.map((url) => ({ db: replicaSequelize(primary, url), downUntil: 0 }));
  }

  pick(): Replica | null {
    const now = Date.now();
    for (let i = 0; i < this.members.length; i += 1) {
      const member = this.members[(this.next + i) % this.members.length];
      if (member.downUntil > now) continue;
      this.next = (this.next + i + 1) % this.members.length;
      return this.replicaOf(member);
    }
    return null;
  }

  private replicaOf(member: { db: Sequelize; downUntil: number }): Replica {
    return {
      db: member.db,
      before: async ({ lease }) => {
        const route = currentReadRoute();
        if (!route?.filling) return;
        const [row] = await raw(lease, 'SELECT pg_last_wal_replay_lsn()::text AS lsn');
        const lsn = row?.lsn;
        // the replica's position before the read; the primary's position now is at least that of
        // every write committed before the read began (decision 86: compare LSNs)
        route.freshness.push(async () => {
          if (typeof lsn !== 'string') return false;
          const manager = (this.primary as unknown as { connectionManager: { getConnection(o: object): Promise<Client>; releaseConnection(c: Client): Promise<void> | void } }).connectionManager;
          const client = await manager.getConnection({ type: 'SELECT' });
          try {
            const [answer] = await raw(client, 'SELECT pg_current_wal_insert_lsn() <= $1::pg_lsn AS fresh', [lsn]);
            return answer?.fresh === true;
          } finally {
            await manager.releaseConnection(client);
          }
        });
      },
      unreachable: (error) => {
        const e = error as { code?: unknown; message?: unknown; name?: unknown };
        const down = UNREACHABLE_CODES.has(String(e.code)) || UNREACHABLE.test(`${String(e.name ?? '')} ${String(e.message ?? '')}`);
        if (down) member.downUntil = Date.now() + DOWN_MS;
        return down;
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all(this.members.map((m) => m.db.close().catch(() => undefined)));
  }
}

function raw(client: Client, sql: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    client.query(new Query(sql, values, (error, result) => (error ? reject(error) : resolve(result.rows as Record<string, unknown>[]))));
  });
}

/** A Sequelize for a replica: the primary's dialect module, client options and pool size, its own URL. */
function replicaSequelize(primary: Sequelize, url: string): Sequelize {
  const options = (primary as unknown as { options: Record<string, unknown> }).options;
  const pool = options.pool as { max?: number; acquire?: number } | undefined;
  return new Sequelize(url, {
    dialect: 'postgres',
    dialectModule: options.dialectModule as object | undefined,
    logging: false,
    dialectOptions: options.dialectOptions as object | undefined,
    // a replica that is down must not hold a read for long: the primary answers instead
    pool: { max: pool?.max ?? 5, acquire: Math.min(pool?.acquire ?? 2_000, 2_000) },
  });
}

const sets = new WeakMap<Sequelize, ReplicaSet | null>();

/**
 * The replica for a read of `sequelize` now, or null: no replicas, no read route, the caller's
 * window, all down. Null at once (no promise) when there is no route or no replica.
 */
export function replicaFor(sequelize: Sequelize): Promise<Replica | null> | null {
  const route = currentReadRoute();
  if (!route) return null;
  let set = sets.get(sequelize);
  if (set === undefined) {
    const urls = sqlOptions(sequelize).replicas ?? [];
    set = urls.length ? new ReplicaSet(sequelize, urls) : null;
    sets.set(sequelize, set);
  }
  if (!set) return null;
  const members = set;
  return route.replicaAllowed().then((allowed) => (allowed ? members.pick() : null));
}

/** Closes the replicas' pools of `sequelize` (the driver's close). */
export async function closeReplicas(sequelize: Sequelize): Promise<void> {
  const set = sets.get(sequelize);
  sets.delete(sequelize);
  await set?.close();
}
