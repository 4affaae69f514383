import type { Driver, DriverCapabilities } from './types';

export type { DriverCapabilities } from './types';

/**
 * A driver's capabilities as plain flags (`DriverCapabilities`, declared beside the Driver contract in
 * types.ts so the contract imports nothing back): derived from the optional methods, overridden by
 * what the driver states in `capabilities()`.
 */
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
