/** The filter operators of the query language; `operators` below narrows them per API. */
export const OPERATORS = [
  '=', '!=', '>', '>=', '<', '<=',
  'like', 'not like', 'ilike', 'not ilike',
  'in', 'not in', 'between', 'not between',
  'null', 'not null',
] as const;

export type Operator = (typeof OPERATORS)[number];

/** Library settings; every one has an environment variable and a default (docs/decisions.md). */
export interface RestConfig {
  /** Maximum filter nesting depth (oper object = 1; each nested group/relation level adds one). */
  maxDepth: number;
  /** Maximum number of leaf conditions in one filter. */
  maxConditions: number;
  defaultPageSize: number;
  maxPageSize: number;
  /** REST_MAX_UNPAGINATED: most rows a list without pagination returns (then `truncated: true`). */
  maxUnpaginated: number;
  /** REST_REQUEST_TIMEOUT_MS: a JSON route's deadline; past it the answer is a 503 `timeout` (exports stream on). */
  requestTimeoutMs: number;
  /** REST_READ_YOUR_WRITES_MS: after a write, the caller's reads go to the primary for this long (decision 86). */
  readYourWritesMs: number;
  /** REST_MAX_TREE_NODES: most records one hierarchy answer may hold (more is a 400 asking to narrow it). */
  maxTreeNodes: number;
  /** REST_MAX_RELATION_DEPTH: most relation segments in one eager-load path (`relations=a.b.c` is 3). */
  maxRelationDepth: number;
  /** REST_MAX_LOADED_RECORDS: most related records the eager loads of one answer may hold, counted at every depth (more is a 400). */
  maxLoadedRecords: number;
  /** REST_MAX_NESTED_RECORDS: most nested items (records, ids, links) one write request may hold (decision 75; more is a 422). */
  maxNestedRecords: number;
  /** REST_IMPORT_ATOMIC_ROWS: most rows an `on_error=abort` import writes all or nothing (decision 82; more is a 413). */
  importAtomicRows: number;
  /** REST_IMPORT_MAX_BYTES: most bytes of one import file (decision 82; the JSON body limit does not apply; more is a 413). */
  importMaxBytes: number;
  /** REST_VALIDATE_COLUMNS: check field names against the model. */
  validateColumns: boolean;
  /** REST_STRICT_COLUMNS: unknown select/orderby columns are a 400 (else dropped). */
  strictColumns: boolean;
  /** Allowed filter operators. */
  operators: readonly Operator[];
  /** Debug mode: `Forbidden: <permission>` messages. */
  debug: boolean;
  /** LOG_QUERY: one query-log line per controller action. */
  logQueries: boolean;
  /** LOG_QUERY_FILE: the query log's file (default none: the logger's `query` channel). */
  queryLogFile: string | null;
  /** LOG_QUERY_FILE_MAX_SIZE: bytes a query log file grows to before the next one starts (default 10 MB). */
  queryLogMaxSize: number;
  /** LOG_QUERY_FILE_MAX_FILES: query log files kept, the current one included (default 5). */
  queryLogMaxFiles: number;
}

function envBool(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  return ['1', 'true', 'yes', 'on'].includes(raw.toLowerCase());
}

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  const n = raw === undefined ? NaN : Number.parseInt(raw, 10);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

export function configFromEnv(overrides: Partial<RestConfig> = {}): RestConfig {
  return {
    maxDepth: envInt('REST_MAX_DEPTH', 5),
    maxConditions: envInt('REST_MAX_CONDITIONS', 100),
    defaultPageSize: envInt('REST_DEFAULT_PAGE_SIZE', 15),
    maxPageSize: envInt('REST_MAX_PAGE_SIZE', 1000),
    maxUnpaginated: envInt('REST_MAX_UNPAGINATED', 1000),
    maxTreeNodes: envInt('REST_MAX_TREE_NODES', 50_000),
    maxRelationDepth: envInt('REST_MAX_RELATION_DEPTH', 3),
    maxLoadedRecords: envInt('REST_MAX_LOADED_RECORDS', 10_000),
    maxNestedRecords: envInt('REST_MAX_NESTED_RECORDS', 1000),
    requestTimeoutMs: envInt('REST_REQUEST_TIMEOUT_MS', 60_000),
    readYourWritesMs: envInt('REST_READ_YOUR_WRITES_MS', 5_000),
    importAtomicRows: envInt('REST_IMPORT_ATOMIC_ROWS', 10_000),
    importMaxBytes: envInt('REST_IMPORT_MAX_BYTES', 1024 * 1024 * 1024),
    validateColumns: envBool('REST_VALIDATE_COLUMNS', true),
    strictColumns: envBool('REST_STRICT_COLUMNS', true),
    operators: OPERATORS,
    debug: envBool('APP_DEBUG', false),
    logQueries: envBool('LOG_QUERY', false),
    queryLogFile: process.env.LOG_QUERY_FILE || null,
    queryLogMaxSize: envInt('LOG_QUERY_FILE_MAX_SIZE', 10 * 1024 * 1024),
    queryLogMaxFiles: envInt('LOG_QUERY_FILE_MAX_FILES', 5),
    ...overrides,
  };
}
