import type { DatabaseErrorInfo } from '../../lib/driver';
import type { ModelMap } from './model-map';

interface PgLike {
  code?: unknown;
  detail?: unknown;
  column?: unknown;
  table?: unknown;
  message?: unknown;
}

const BAD_REQUEST = new Set(['22P02', '22003', '22007', '22008', '23514', '22001', '22021', '2201X', '2201W', '22023']);
/**
 * "The database is unavailable" (503 connection_error): a refused, reset, timed-out or closed
 * socket, a server shutting down or restarting (57P01 admin_shutdown, 57P02 crash_shutdown,
 * 57P03 cannot_connect_now, 57P05 idle_session_timeout), too many connections (53300), and every
 * class 08 code (08006 connection_failure, 08003 connection_does_not_exist, 08001 ...).
 */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EPIPE',
  '57P01', '57P02', '57P03', '57P05', '53300',
]);
/** Sequelize's connection error classes (refused, timed out, pool acquire time-out, host errors). */
const CONNECTION_NAMES = /Connection(Refused|TimedOut|Acquire|AcquireTimeout|)Error|HostNotFound|HostNotReachable|InvalidConnection|AccessDenied/;
/** pg's own texts for a lost, closed or never-made connection (no code on these). */
const CONNECTION_TEXTS = /Connection terminated|connection .*closed|ECONNREFUSED|ECONNRESET|not queryable|timeout exceeded when trying to connect|Client was closed|Cannot use a pool after calling end/i;

/** The error and what it wraps (Sequelize: `parent`/`original`; also `cause`). */
function chainOf(error: unknown): PgLike[] {
  const chain: PgLike[] = [];
  let current: unknown = error;
  while (current && typeof current === 'object' && !chain.includes(current as PgLike)) {
    chain.push(current as PgLike);
    const e = current as { parent?: unknown; original?: unknown; cause?: unknown };
    current = e.parent ?? e.original ?? e.cause;
  }
  return chain;
}

/** The pg error: the first in the chain carrying a SQLSTATE (or a socket error code). */
function pgErrorOf(error: unknown): PgLike | null {
  return chainOf(error).find((e) => typeof e.code === 'string') ?? null;
}

/** Column named in `Key (sku)=(...)` / `Key (a, b)=(...)`: the first one. */
function columnFromDetail(detail: unknown): string | undefined {
  if (typeof detail !== 'string') return undefined;
  const match = /Key \(([^)]+)\)=/.exec(detail);
  return match ? match[1].split(',')[0].trim().replace(/^"|"$/g, '') : undefined;
}

/** A column of a table back to its field name (Sequelize attribute). */
function fieldOf(tables: ModelMap, table: unknown, column: string | undefined): string | undefined {
  if (!column) return undefined;
  for (const info of Object.values(tables)) {
    if (typeof table === 'string' && info.table !== table) continue;
    for (const [field, col] of Object.entries(info.columns)) if (col === column) return field;
  }
  return column;
}

export function translateSqlError(error: unknown, tables: ModelMap): DatabaseErrorInfo | null {
  if (!error || typeof error !== 'object') return null;
  const name = String((error as { name?: unknown }).name ?? '');
  const pg = pgErrorOf(error);
  const code = typeof pg?.code === 'string' ? pg.code : '';
  const withField = (type: DatabaseErrorInfo['type'], field: string | undefined): DatabaseErrorInfo => (field ? { type, field } : { type });

  if (code === '23505') {
    const fields = (error as { fields?: unknown }).fields;
    const fromSequelize = fields && typeof fields === 'object' && !Array.isArray(fields) ? Object.keys(fields)[0] : undefined;
    return withField('unique_violation', fieldOf(tables, pg?.table, columnFromDetail(pg?.detail) ?? fromSequelize));
  }
  // ON DELETE RESTRICT raises 23001 (restrict_violation), NO ACTION raises 23503
  if (code === '23503' || code === '23001') return withField('foreign_key_violation', fieldOf(tables, pg?.table, columnFromDetail(pg?.detail)));
  if (code === '23502') return withField('not_null_violation', fieldOf(tables, pg?.table, typeof pg?.column === 'string' ? pg.column : undefined));
  // retried by the driver first (sql-driver.ts); what is left after the retries is a conflict
  if (code === '40P01' || code === '40001') return { type: 'conflict' };
  // statement_timeout / lock_timeout / a cancelled statement
  if (code === '57014' || code === '55P03') return { type: 'timeout' };
  if (BAD_REQUEST.has(code)) return withField('bad_request', fieldOf(tables, pg?.table, typeof pg?.column === 'string' ? pg.column : undefined));
  if (code.startsWith('08') || CONNECTION_CODES.has(code) || CONNECTION_NAMES.test(name)) return { type: 'connection_error' };
  const chain = chainOf(error);
  if (chain.some((e) => CONNECTION_NAMES.test(String((e as { name?: unknown }).name ?? '')) || CONNECTION_TEXTS.test(String(e.message ?? '')))) return { type: 'connection_error' };
  // pg's client-side query_timeout: the server did not answer in time (a stalled server)
  if (chain.some((e) => /Query read timeout/.test(String(e.message ?? '')))) return { type: 'timeout' };
  if (name === 'SequelizeValidationError') {
    const errors: Record<string, string[]> = {};
    for (const item of (error as { errors?: { path?: string | null; message?: string }[] }).errors ?? []) {
      const path = item.path ?? 'value';
      if (path === '__proto__' || path === 'constructor' || path === 'prototype') continue;
      (errors[path] ??= []).push(item.message ?? 'is invalid');
    }
    return { type: 'validation_error', errors };
  }
  return null;
}
