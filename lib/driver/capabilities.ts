import type { Driver } from './types';

/**
 * What a driver can do, as plain flags (Kysely's style): features check a flag, never probe a
 * method. A driver states `capabilities` for what its methods cannot show (MongoDB without a
 * replica set has no multi-document transactions); the rest follows from the optional methods.
 */
export interface DriverCapabilities {
  /** Writes of one request commit or roll back together. */
  transactions: boolean;
  /** Many-to-many pivot reads and writes (relation routes, nested links). */
  pivots: boolean;
  /** Rows from a database cursor (exports); else keyset pages. */
  streams: boolean;
  /** Grouped aggregates (GET /{resource}/aggregate). */
  aggregates: boolean;
  /** Inserts and updates that return the written rows in the same statement. */
  returningWrites: boolean;
  /** A lock that serializes hierarchy moves of one model. */
  hierarchyLocks: boolean;
  /**
   * Statements of one transaction may be issued together and are answered in order (PostgreSQL's
   * pipelined connection): independent checks inside a transaction cost one round trip together.
   * Without it, a transaction's operations run one after another (a MongoDB session).
   */
  pipelinedTransactions: boolean;
}

export function capabilitiesOf(driver: Driver): DriverCapabilities {
  return {
    transactions: true,
    pivots: Boolean(driver.pivots),
    streams: Boolean(driver.streams),
    aggregates: Boolean(driver.aggregate),
    returningWrites: Boolean(driver.insertRows && driver.updateRows),
    hierarchyLocks: Boolean(driver.lockHierarchy),
    pipelinedTransactions: false,
    ...driver.capabilities?.(),
  };
}
