/** Where each MODEL lives in PostgreSQL: the compiler's only source of identifiers. */
export interface StorageInfo {
  /** Table name, optionally schema-qualified by `schema`. */
  table: string;
  schema?: string;
  /** Field (Sequelize attribute) -> column; a field absent here is its own column name. */
  columns: Record<string, string>;
  /**
   * Fields compared as text (PostgreSQL ENUM and UUID columns): MongoDB compares, sorts and
   * pattern-matches such values as plain strings, and an unknown enum label must match nothing
   * rather than fail.
   */
  textCasts?: Record<string, 'text' | 'text[]'>;
  /**
   * Fields whose column type's `=` says what comparing their JSON says (numbers, booleans,
   * timestamps, case-sensitive text): an update's dirty check (decision 67) compares them directly,
   * not through to_jsonb, which cost a batch update of 100 rows ~0.1 ms of PostgreSQL's time.
   */
  plainEquality?: Readonly<Record<string, true>>;
  /** Column -> its SQL type as the catalog names it, learned at start (column-types.ts); absent until then. */
  columnTypes?: Readonly<Record<string, string>>;
  /** Fields that lead an index the model declares (compile-count-filter.ts counts through them). */
  indexed?: readonly string[];
  /** Timestamp fields maintained by the driver (null when the model has none). */
  createdAt: string | null;
  updatedAt: string | null;
}

export type ModelMap = Readonly<Record<string, StorageInfo>>;
