import type { Sequelize } from 'sequelize';
import { sqlOptions } from './sql-options';

/**
 * A transaction-mode pooler (PgBouncer before 1.21) hands each transaction whichever server
 * connection is free, so a statement named on one is unknown on another (26000: `prepared
 * statement "grr_1" does not exist`) or already named there by another client (42P05).
 */
export function isPoolerError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === '26000' || code === '42P05';
}

/** Set on the first pooler error under `auto`: from then on this process names no statement. */
let unnamed = false;

/** True when statements of `sequelize` may run named (prepared). */
export function namesAllowed(sequelize: Sequelize): boolean {
  const mode = sqlOptions(sequelize).preparedStatements ?? 'auto';
  return mode === 'on' || (mode === 'auto' && !unnamed);
}

/** Under `auto`, a pooler error switches the process to unnamed statements; true when it did (retry then). */
export function fallBackOn(sequelize: Sequelize, error: unknown): boolean {
  if (!isPoolerError(error) || (sqlOptions(sequelize).preparedStatements ?? 'auto') !== 'auto') return false;
  unnamed = true;
  return true;
}

/** For tests: names allowed again. */
export function resetPoolerFallback(): void {
  unnamed = false;
}

/** Raised inside a transaction after the switch: the driver's retry loop runs the transaction again. */
export function poolerRetry(error: unknown): Error {
  return Object.assign(new Error(`A pooler lost a prepared statement (${String((error as Error).message)}); the transaction runs again with unnamed statements.`), { code: '40001', poolerRetry: true });
}
